import { operation } from '../shared/http/operation.ts';
import { listOrganizationKeysRoute } from '../shared/routes.ts';
import { listOrganizationKeys } from '../shared/identity/user-keys.ts';

export const handler = operation(listOrganizationKeysRoute, ({ caller, params, query }) =>
  listOrganizationKeys(caller, params.orgId, query),
);
