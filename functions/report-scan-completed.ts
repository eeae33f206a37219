import { operation } from '../shared/http/operation.ts';
import { reportScanCompleted } from '../shared/scan-reporting.ts';
import type { ScanCompletedBody } from '../shared/scan-inputs.ts';

export const handler = operation<{ scanId: string }, object, ScanCompletedBody>('reportScanCompleted', ({ caller, params, body }) =>
  reportScanCompleted(caller, params.scanId, body),
);
