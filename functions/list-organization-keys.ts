import { operation } from '../shared/http/operation.ts';
import { listOrganizationKeysRoute } from '../shared/routes.ts';
import { listOrganizationKeys } from '../shared/identity/user-keys.ts';
import type { ListOrganizationKeysQuery } from '../shared/identity/inputs.ts';

export const handler = operation<{ orgId: string }, ListOrganizationKeysQuery>(
  listOrganizationKeysRoute,
  ({ caller, params, query }) => listOrganizationKeys(caller, params.orgId, query),
);
