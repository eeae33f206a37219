import { operation } from '../shared/http/operation.ts';
import { importScanReportRoute } from '../shared/routes.ts';
import { importDeadline, importScanReport } from '../shared/scans/import.ts';
import type { ImportScanQuery } from '../shared/scans/inputs.ts';

export const handler = operation<{ appId: string }, ImportScanQuery>(
  importScanReportRoute,
  ({ caller, params, query, rawBody, remainingMs }) =>
    importScanReport(caller, params.appId, query.env, rawBody!, importDeadline(remainingMs()), query.format),
);
