import { operation } from '../shared/http/operation.ts';
import { reportScanStarted } from '../shared/scan-start.ts';
import type { ScanStartedBody } from '../shared/scan-inputs.ts';

export const handler = operation<{ appId: string }, object, ScanStartedBody>('reportScanStarted', ({ caller, params, body }) =>
  reportScanStarted(caller, params.appId, body),
);
