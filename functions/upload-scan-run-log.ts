import { operation } from '../shared/http/operation.ts';
import { uploadScanRunLogRoute } from '../shared/routes.ts';
import { uploadRunLog } from '../shared/perch/agents.ts';

export const handler = operation(uploadScanRunLogRoute, ({ caller, params, query, rawBody }) =>
  uploadRunLog(caller, params.appId, params.scanKey, query.deviceId, rawBody),
);
