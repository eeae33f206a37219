import { operation } from '../shared/http/operation.ts';
import { listScanAlertFindingsRoute } from '../shared/routes.ts';
import { listScanAlertFindings } from '../shared/scans/results.ts';
import type { ListAlertFindingsQuery } from '../shared/scans/inputs.ts';

export const handler = operation<{ scanId: string; pluginId: string }, ListAlertFindingsQuery>(
  listScanAlertFindingsRoute,
  ({ caller, params, query }) => listScanAlertFindings(caller, params.scanId, params.pluginId, query),
);
