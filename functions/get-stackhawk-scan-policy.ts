import { operation } from '../shared/http/operation.ts';
import { getStackHawkScanPolicyRoute } from '../shared/routes.ts';
import { builtInPolicyByName } from '../shared/policies/policies.ts';

export const handler = operation<Record<string, string>, { policyName: string }>(
  getStackHawkScanPolicyRoute,
  ({ caller, route, query }) => builtInPolicyByName(caller, route.permission!, query.policyName),
);
