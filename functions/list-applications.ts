import { operation } from '../shared/http/operation.ts';
import { listApplicationsRoute } from '../shared/routes.ts';
import type { ListApplicationsV1Query } from '../shared/applications/inputs.ts';
import { listApplicationsV1 } from '../shared/applications/applications.ts';

export const handler = operation<{ orgId: string }, ListApplicationsV1Query>(
  listApplicationsRoute,
  ({ caller, params, query }) => listApplicationsV1(caller, params.orgId, query),
);
