import { operation } from '../shared/http/operation.ts';
import { stopScanRoute } from '../shared/routes.ts';
import { stopScan } from '../shared/perch/commands.ts';

export const handler = operation(stopScanRoute, ({ caller, params }) => stopScan(caller, params.appId));
