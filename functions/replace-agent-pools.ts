import { operation } from '../shared/http/operation.ts';
import { replaceAgentPoolsRoute } from '../shared/routes.ts';
import { replaceAgentPools } from '../shared/perch/pools.ts';

export const handler = operation(replaceAgentPoolsRoute, ({ caller, params, body }) =>
  replaceAgentPools(caller, params.orgId, body),
);
