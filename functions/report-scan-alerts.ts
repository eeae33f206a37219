import { operation } from '../shared/http/operation.ts';
import { reportScanAlertsRoute } from '../shared/routes.ts';
import { reportScanAlerts } from '../shared/scans/reporting.ts';

export const handler = operation(reportScanAlertsRoute, ({ caller, params, readBody }) =>
  reportScanAlerts(caller, params.scanId, readBody),
);
