import { operation } from '../shared/http/operation.ts';
import { removeMemberRoute } from '../shared/routes.ts';
import { removeMember } from '../shared/identity/member-management.ts';

export const handler = operation<{ orgId: string; userId: string }>(removeMemberRoute, ({ caller, params }) =>
  removeMember(caller, params.orgId, params.userId),
);
