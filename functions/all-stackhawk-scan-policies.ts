import { operation } from '../shared/http/operation.ts';
import { allBuiltInPolicies } from '../shared/policies/policies.ts';

export const handler = operation('allStackHawkScanPolicies', ({ caller, route }) => allBuiltInPolicies(caller, route.permission!));
