import { operation } from '../shared/http/operation.ts';
import { listAgentPoolsRoute } from '../shared/routes.ts';
import { listAgentPools } from '../shared/perch/pools.ts';

export const handler = operation(listAgentPoolsRoute, ({ caller, params }) => listAgentPools(caller, params.orgId));
