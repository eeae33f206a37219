import { operation } from '../shared/http/operation.ts';
import { listScanPoliciesForOrgRoute } from '../shared/routes.ts';
import { organizationPolicyList } from '../shared/policies/policies.ts';

export const handler = operation(listScanPoliciesForOrgRoute, ({ params, query }) =>
  organizationPolicyList(params.orgId, query),
);
