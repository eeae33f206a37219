import { operation } from '../shared/http/operation.ts';
import { listScanPoliciesForOrgRoute } from '../shared/routes.ts';
import { organizationPolicyList } from '../shared/policies/policies.ts';
import type { ListOrganizationPoliciesQuery } from '../shared/policies/inputs.ts';

export const handler = operation<{ orgId: string }, ListOrganizationPoliciesQuery>(
  listScanPoliciesForOrgRoute,
  ({ params, query }) => organizationPolicyList(params.orgId, query),
);
