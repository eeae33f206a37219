import { operation } from '../shared/http/operation.ts';
import { listScanAlertFindingsRoute } from '../shared/routes.ts';
import { listScanAlertFindings } from '../shared/scans/results.ts';

export const handler = operation(listScanAlertFindingsRoute, ({ caller, params, query }) =>
  listScanAlertFindings(caller, params.scanId, params.pluginId, query),
);
