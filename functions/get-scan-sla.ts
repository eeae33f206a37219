import { operation } from '../shared/http/operation.ts';
import { getScanSlaRoute } from '../shared/routes.ts';
import { scanSla } from '../shared/scans/scan-sla.ts';

export const handler = operation(getScanSlaRoute, ({ caller, params }) => scanSla(caller, params.scanId));
