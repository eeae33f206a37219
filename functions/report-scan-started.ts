import { operation } from '../shared/http/operation.ts';
import { reportScanStarted } from '../shared/scans/start.ts';
import type { ScanStartedBody } from '../shared/scans/inputs.ts';

export const handler = operation<{ appId: string }, object, ScanStartedBody>('reportScanStarted', ({ caller, params, body }) =>
  reportScanStarted(caller, params.appId, body),
);
