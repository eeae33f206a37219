import { operation } from '../shared/http/operation.ts';
import { listApplicationsRoute } from '../shared/routes.ts';
import { applicationListV1Reads, listApplicationsV1 } from '../shared/applications/applications.ts';

export const handler = operation(
  listApplicationsRoute,
  ({ caller, params, query }) => listApplicationsV1(caller, params.orgId, query),
  { prefetch: applicationListV1Reads },
);
