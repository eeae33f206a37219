import { operation } from '../shared/http/operation.ts';
import { listApplicationScanSecretsRoute } from '../shared/routes.ts';
import { listApplicationScanSecrets } from '../shared/scans/secrets.ts';

export const handler = operation(listApplicationScanSecretsRoute, ({ caller, params }) =>
  listApplicationScanSecrets(caller, params.appId),
);
