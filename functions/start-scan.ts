import { operation } from '../shared/http/operation.ts';
import { startScanRoute } from '../shared/routes.ts';
import { startScan } from '../shared/perch/commands.ts';

export const handler = operation(startScanRoute, ({ caller, params, body }) => startScan(caller, params.appId, body));
