import { operation } from '../shared/http/operation.ts';
import { getScanSarifRoute } from '../shared/routes.ts';
import { scanSarif } from '../shared/scans/sarif.ts';

export const handler = operation(getScanSarifRoute, ({ caller, params, query, mediaType, headers }) =>
  scanSarif(caller, params.scanId, query, { mediaType, acceptEncoding: headers['accept-encoding'] }),
);
