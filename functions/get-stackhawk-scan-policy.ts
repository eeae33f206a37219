import { operation } from '../shared/http/operation.ts';
import { builtInPolicyByName } from '../shared/policies/policies.ts';

export const handler = operation<Record<string, string>, { policyName: string }>('getStackHawkScanPolicy', ({ caller, route, query }) =>
  builtInPolicyByName(caller, route.permission!, query.policyName),
);
