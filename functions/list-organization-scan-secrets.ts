import { operation } from '../shared/http/operation.ts';
import { listOrganizationScanSecretsRoute } from '../shared/routes.ts';
import { listOrganizationScanSecrets } from '../shared/scans/secrets.ts';

export const handler = operation(listOrganizationScanSecretsRoute, ({ caller, params }) =>
  listOrganizationScanSecrets(caller, params.orgId),
);
