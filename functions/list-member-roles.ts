import { operation } from '../shared/http/operation.ts';
import { listMemberRolesRoute } from '../shared/routes.ts';
import { listMemberRoles } from '../shared/identity/member-management.ts';

export const handler = operation(listMemberRolesRoute, ({ caller, params, query }) =>
  listMemberRoles(caller, params.orgId, query),
);
