import { operation } from '../shared/http/operation.ts';
import { allStackHawkScanPoliciesRoute } from '../shared/routes.ts';
import { allBuiltInPolicies } from '../shared/policies/policies.ts';

export const handler = operation(allStackHawkScanPoliciesRoute, ({ caller, route }) =>
  allBuiltInPolicies(caller, route.permission!),
);
