import { operation } from '../shared/http/operation.ts';
import { updateMemberRoute } from '../shared/routes.ts';
import { updateMember } from '../shared/identity/member-management.ts';
import type { UpdateMemberBody } from '../shared/identity/inputs.ts';

export const handler = operation<{ orgId: string; userId: string }, object, UpdateMemberBody>(
  updateMemberRoute,
  ({ caller, params, body }) => updateMember(caller, params.orgId, params.userId, body),
);
