import { operation } from '../shared/http/operation.ts';
import { getStackHawkScanPolicyRoute } from '../shared/routes.ts';
import { builtInPolicyByName } from '../shared/policies/policies.ts';

export const handler = operation(getStackHawkScanPolicyRoute, ({ caller, route, query }) =>
  builtInPolicyByName(caller, route.permission!, query.policyName),
);
