import { operation } from '../shared/http/operation.ts';
import { uploadProfileScanResultRoute } from '../shared/routes.ts';
import { uploadProfileResult } from '../shared/profiles/result-upload.ts';
import type { ProfileResultBody } from '../shared/profiles/inputs.ts';

export const handler = operation<{ appId: string; scanKey: string }, { deviceId: string }, ProfileResultBody>(
  uploadProfileScanResultRoute,
  ({ caller, params, query, readBody }) =>
    uploadProfileResult(caller, params.appId, params.scanKey, query.deviceId, readBody),
);
