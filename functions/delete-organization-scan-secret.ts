import { operation } from '../shared/http/operation.ts';
import { deleteOrganizationScanSecretRoute } from '../shared/routes.ts';
import { deleteOrganizationScanSecret } from '../shared/scans/secrets.ts';

export const handler = operation(deleteOrganizationScanSecretRoute, ({ caller, params }) =>
  deleteOrganizationScanSecret(caller, params.orgId, params.name),
);
