import { operation } from '../shared/http/operation.ts';
import { setScanPolicyForOrgRoute } from '../shared/routes.ts';
import { upsertOrganizationPolicy } from '../shared/policies/policies.ts';
import type { UpsertOrganizationPolicy } from '../shared/policies/inputs.ts';

export const handler = operation<{ orgId: string }, unknown, { scanPolicy: UpsertOrganizationPolicy }>(
  setScanPolicyForOrgRoute,
  ({ caller, params, body }) => upsertOrganizationPolicy(caller, params.orgId, body.scanPolicy),
);
