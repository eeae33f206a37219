import { operation } from '../shared/http/operation.ts';
import { reportScanStartedRoute } from '../shared/routes.ts';
import { reportScanStarted } from '../shared/scans/start.ts';

export const handler = operation(reportScanStartedRoute, ({ caller, params, readBody }) =>
  reportScanStarted(caller, params.appId, readBody),
);
