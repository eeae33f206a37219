import { operation } from '../shared/http/operation.ts';
import { reportScanAlerts } from '../shared/scan-reporting.ts';
import type { ScanAlertsBody } from '../shared/scan-inputs.ts';

export const handler = operation<{ scanId: string }, object, ScanAlertsBody>('reportScanAlerts', ({ caller, params, body }) =>
  reportScanAlerts(caller, params.scanId, body),
);
