import { operation } from '../shared/http/operation.ts';
import { organizationPolicyList } from '../shared/policies/policies.ts';
import type { ListOrganizationPoliciesQuery } from '../shared/policies/inputs.ts';

export const handler = operation<{ orgId: string }, ListOrganizationPoliciesQuery>('listScanPoliciesForOrg', ({ params, query }) =>
  organizationPolicyList(params.orgId, query),
);
