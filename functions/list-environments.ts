import { operation } from '../shared/http/operation.ts';
import { listEnvironmentsRoute } from '../shared/routes.ts';
import type { ListEnvironmentsV1Query } from '../shared/applications/inputs.ts';
import { listEnvironmentsV1 } from '../shared/applications/environments.ts';

export const handler = operation<{ appId: string }, ListEnvironmentsV1Query>(
  listEnvironmentsRoute,
  ({ caller, params, query }) => listEnvironmentsV1(caller, params.appId, query),
);
