import { operation } from '../shared/http/operation.ts';
import { getScanSarifRoute } from '../shared/routes.ts';
import { scanSarif } from '../shared/scans/sarif.ts';
import type { ScanSarifQuery } from '../shared/scans/inputs.ts';

export const handler = operation<{ scanId: string }, ScanSarifQuery>(
  getScanSarifRoute,
  ({ caller, params, query, mediaType, headers }) =>
    scanSarif(caller, params.scanId, query, { mediaType, acceptEncoding: headers['accept-encoding'] }),
);
