import { operation } from '../shared/http/operation.ts';
import { listEnvsV2Route } from '../shared/routes.ts';
import type { ListEnvironmentsV2Query } from '../shared/applications/inputs.ts';
import { listEnvironmentsV2 } from '../shared/applications/environment-list.ts';

export const handler = operation<{ orgId: string }, ListEnvironmentsV2Query>(
  listEnvsV2Route,
  ({ caller, params, query }) => listEnvironmentsV2(caller, params.orgId, query),
);
