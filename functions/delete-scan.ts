import { operation } from '../shared/http/operation.ts';
import { deleteScanRoute } from '../shared/routes.ts';
import { deleteScan } from '../shared/scans/results.ts';

export const handler = operation(deleteScanRoute, ({ caller, params }) => deleteScan(caller, params.scanId));
