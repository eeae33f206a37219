import { operation } from '../shared/http/operation.ts';
import { reportScanAlertsRoute } from '../shared/routes.ts';
import { reportScanAlerts } from '../shared/scans/reporting.ts';
import type { ScanAlertsBody } from '../shared/scans/inputs.ts';

export const handler = operation<{ scanId: string }, object, ScanAlertsBody>(
  reportScanAlertsRoute,
  ({ caller, params, readBody }) => reportScanAlerts(caller, params.scanId, readBody),
);
