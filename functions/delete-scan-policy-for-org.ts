import { operation } from '../shared/http/operation.ts';
import { removeOrganizationPolicy } from '../shared/policies/policies.ts';

export const handler = operation<{ orgId: string; policyName: string }>('deleteScanPolicyForOrg', ({ caller, params }) =>
  removeOrganizationPolicy(caller, params.orgId, params.policyName),
);
