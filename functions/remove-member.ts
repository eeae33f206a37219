import { operation } from '../shared/http/operation.ts';
import { removeMemberRoute } from '../shared/routes.ts';
import { removeMember } from '../shared/identity/member-management.ts';

export const handler = operation(removeMemberRoute, ({ caller, params }) =>
  removeMember(caller, params.orgId, params.userId),
);
