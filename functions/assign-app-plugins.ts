import { operation } from '../shared/http/operation.ts';
import { assignAppPluginsRoute } from '../shared/routes.ts';
import { assignApplicationPolicy } from '../shared/policies/policies.ts';

export const handler = operation(assignAppPluginsRoute, ({ caller, params, query }) =>
  assignApplicationPolicy(caller, params.appId, query.policyName),
);
