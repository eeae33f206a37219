import { operation } from '../shared/http/operation.ts';
import { listMemberRolesRoute } from '../shared/routes.ts';
import { listMemberRoles } from '../shared/identity/member-management.ts';
import type { ListMemberRolesQuery } from '../shared/identity/inputs.ts';

export const handler = operation<{ orgId: string }, ListMemberRolesQuery>(
  listMemberRolesRoute,
  ({ caller, params, query }) => listMemberRoles(caller, params.orgId, query),
);
