import { operation } from '../shared/http/operation.ts';
import { deleteScanPolicyForOrgRoute } from '../shared/routes.ts';
import { removeOrganizationPolicy } from '../shared/policies/policies.ts';

export const handler = operation(deleteScanPolicyForOrgRoute, ({ caller, params }) =>
  removeOrganizationPolicy(caller, params.orgId, params.policyName),
);
