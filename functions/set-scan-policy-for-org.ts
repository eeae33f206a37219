import { operation } from '../shared/http/operation.ts';
import { upsertOrganizationPolicy } from '../shared/policies/policies.ts';
import type { UpsertOrganizationPolicy } from '../shared/policies/inputs.ts';

export const handler = operation<{ orgId: string }, unknown, { scanPolicy: UpsertOrganizationPolicy }>('setScanPolicyForOrg', ({ caller, params, body }) =>
  upsertOrganizationPolicy(caller, params.orgId, body.scanPolicy),
);
