import { operation } from '../shared/http/operation.ts';
import { getApplicationScanPolicyRoute } from '../shared/routes.ts';
import { applicationPolicy } from '../shared/policies/policies.ts';

export const handler = operation(getApplicationScanPolicyRoute, ({ caller, params, query }) =>
  applicationPolicy(caller, params.appId, query),
);
