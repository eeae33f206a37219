import { operation } from '../shared/http/operation.ts';
import { getApplicationScanPolicyRoute } from '../shared/routes.ts';
import { applicationPolicy } from '../shared/policies/policies.ts';

export const handler = operation<{ appId: string }, { policyName: string; policyConfigured: boolean }>(
  getApplicationScanPolicyRoute,
  ({ caller, params, query }) => applicationPolicy(caller, params.appId, query),
);
