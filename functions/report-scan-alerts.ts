import { operation } from '../shared/http/operation.ts';
import { reportScanAlerts } from '../shared/scans/reporting.ts';
import type { ScanAlertsBody } from '../shared/scans/inputs.ts';

export const handler = operation<{ scanId: string }, object, ScanAlertsBody>('reportScanAlerts', ({ caller, params, readBody }) =>
  reportScanAlerts(caller, params.scanId, readBody),
);
