import { operation } from '../shared/http/operation.ts';
import { listEnvironmentsRoute } from '../shared/routes.ts';
import { environmentListV1Reads, listEnvironmentsV1 } from '../shared/scans/environment-list-v1.ts';

export const handler = operation(
  listEnvironmentsRoute,
  ({ caller, params, query }) => listEnvironmentsV1(caller, params.appId, query),
  { prefetch: environmentListV1Reads },
);
