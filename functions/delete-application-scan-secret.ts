import { operation } from '../shared/http/operation.ts';
import { deleteApplicationScanSecretRoute } from '../shared/routes.ts';
import { deleteApplicationScanSecret } from '../shared/scans/secrets.ts';

export const handler = operation(deleteApplicationScanSecretRoute, ({ caller, params }) =>
  deleteApplicationScanSecret(caller, params.appId, params.name),
);
