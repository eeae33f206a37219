import { operation } from '../shared/http/operation.ts';
import { listEnvsV2Route } from '../shared/routes.ts';
import { environmentListReads, listEnvironmentsV2 } from '../shared/applications/environment-list.ts';

export const handler = operation(
  listEnvsV2Route,
  ({ caller, params, query }) => listEnvironmentsV2(caller, params.orgId, query),
  { prefetch: environmentListReads },
);
