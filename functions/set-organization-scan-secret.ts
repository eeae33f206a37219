import { operation } from '../shared/http/operation.ts';
import { setOrganizationScanSecretRoute } from '../shared/routes.ts';
import { setOrganizationScanSecret } from '../shared/scans/secrets.ts';

export const handler = operation(setOrganizationScanSecretRoute, ({ caller, params, body }) =>
  setOrganizationScanSecret(caller, params.orgId, params.name, body.value),
);
