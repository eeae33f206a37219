import { operation } from '../shared/http/operation.ts';
import { listMembersRoute } from '../shared/routes.ts';
import { listMembers } from '../shared/identity/members.ts';

export const handler = operation(listMembersRoute, ({ caller, params, query }) =>
  listMembers(caller, params.orgId, query),
);
