import { operation } from '../shared/http/operation.ts';
import { reportScanRunStartedRoute } from '../shared/routes.ts';
import { reportScanRunStarted } from '../shared/perch/run-scan.ts';

export const handler = operation(reportScanRunStartedRoute, ({ caller, params, query, readBody }) =>
  reportScanRunStarted(caller, params.appId, params.scanKey, query, readBody),
);
