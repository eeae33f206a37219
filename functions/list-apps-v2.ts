import { operation } from '../shared/http/operation.ts';
import { listAppsV2Route } from '../shared/routes.ts';
import { applicationListReads, listApplicationsV2 } from '../shared/applications/applications.ts';

export const handler = operation(
  listAppsV2Route,
  ({ caller, params, query }) => listApplicationsV2(caller, params.orgId, query),
  { prefetch: applicationListReads },
);
