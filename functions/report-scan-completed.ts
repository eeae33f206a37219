import { operation } from '../shared/http/operation.ts';
import { reportScanCompletedRoute } from '../shared/routes.ts';
import { reportScanCompleted } from '../shared/scans/reporting.ts';

export const handler = operation(reportScanCompletedRoute, ({ caller, params, body }) =>
  reportScanCompleted(caller, params.scanId, body),
);
