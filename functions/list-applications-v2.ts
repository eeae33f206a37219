import { operation } from '../shared/http/operation.ts';
import { listAppsV2Route } from '../shared/routes.ts';
import type { ListApplicationsV2Query } from '../shared/applications/inputs.ts';
import { listApplicationsV2 } from '../shared/applications/applications.ts';

export const handler = operation<{ orgId: string }, ListApplicationsV2Query>(
  listAppsV2Route,
  ({ caller, params, query }) => listApplicationsV2(caller, params.orgId, query),
);
