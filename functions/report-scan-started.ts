import { operation } from '../shared/http/operation.ts';
import { reportScanStartedRoute } from '../shared/routes.ts';
import { reportScanStarted } from '../shared/scans/start.ts';
import type { ScanStartedBody } from '../shared/scans/inputs.ts';

export const handler = operation<{ appId: string }, object, ScanStartedBody>(
  reportScanStartedRoute,
  ({ caller, params, readBody }) => reportScanStarted(caller, params.appId, readBody),
);
