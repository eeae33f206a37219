import { operation } from '../shared/http/operation.ts';
import { endScanRunRoute } from '../shared/routes.ts';
import { endScanRun } from '../shared/perch/run-end.ts';

export const handler = operation(endScanRunRoute, ({ caller, params, query, readBody }) =>
  endScanRun(caller, params.appId, params.scanKey, query.deviceId, readBody),
);
