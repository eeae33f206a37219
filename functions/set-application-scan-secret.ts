import { operation } from '../shared/http/operation.ts';
import { setApplicationScanSecretRoute } from '../shared/routes.ts';
import { setApplicationScanSecret } from '../shared/scans/secrets.ts';

export const handler = operation(setApplicationScanSecretRoute, ({ caller, params, body }) =>
  setApplicationScanSecret(caller, params.appId, params.name, body.value),
);
