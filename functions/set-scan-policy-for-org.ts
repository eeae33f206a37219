import { operation } from '../shared/http/operation.ts';
import { setScanPolicyForOrgRoute } from '../shared/routes.ts';
import { upsertOrganizationPolicy } from '../shared/policies/policies.ts';

export const handler = operation(setScanPolicyForOrgRoute, ({ caller, params, body }) =>
  upsertOrganizationPolicy(caller, params.orgId, body.scanPolicy),
);
