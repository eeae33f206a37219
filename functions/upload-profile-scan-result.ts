import { operation } from '../shared/http/operation.ts';
import { uploadProfileScanResultRoute } from '../shared/routes.ts';
import { uploadProfileResult } from '../shared/profiles/result-upload.ts';

export const handler = operation(uploadProfileScanResultRoute, ({ caller, params, query, readBody }) =>
  uploadProfileResult(caller, params.appId, params.scanKey, query.deviceId, readBody),
);
