import { operation } from '../shared/http/operation.ts';
import { listMembersRoute } from '../shared/routes.ts';
import { listMembers } from '../shared/identity/members.ts';
import type { ListMembersQuery } from '../shared/identity/inputs.ts';

export const handler = operation<{ orgId: string }, ListMembersQuery>(listMembersRoute, ({ caller, params, query }) =>
  listMembers(caller, params.orgId, query),
);
