import { operation } from '../shared/http/operation.ts';
import { reportScanCompletedRoute } from '../shared/routes.ts';
import { reportScanCompleted } from '../shared/scans/reporting.ts';
import type { ScanCompletedBody } from '../shared/scans/inputs.ts';

export const handler = operation<{ scanId: string }, object, ScanCompletedBody>(
  reportScanCompletedRoute,
  ({ caller, params, body }) => reportScanCompleted(caller, params.scanId, body),
);
