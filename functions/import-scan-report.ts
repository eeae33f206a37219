import { operation } from '../shared/http/operation.ts';
import { importScanReportRoute } from '../shared/routes.ts';
import { importDeadline, importScanReport } from '../shared/scans/import.ts';

export const handler = operation(importScanReportRoute, ({ caller, params, query, rawBody, remainingMs }) =>
  importScanReport(caller, params.appId, query.env, rawBody, importDeadline(remainingMs()), query.format),
);
