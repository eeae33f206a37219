import { operation } from '../shared/http/operation.ts';
import { updateMemberRoute } from '../shared/routes.ts';
import { updateMember } from '../shared/identity/member-management.ts';

export const handler = operation(updateMemberRoute, ({ caller, params, body }) =>
  updateMember(caller, params.orgId, params.userId, body),
);
