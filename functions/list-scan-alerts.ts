import { operation } from '../shared/http/operation.ts';
import { listScanAlertsRoute } from '../shared/routes.ts';
import { listScanAlerts } from '../shared/scans/results.ts';

export const handler = operation(listScanAlertsRoute, ({ caller, params, query }) =>
  listScanAlerts(caller, params.scanId, query),
);
