import { operation } from '../shared/http/operation.ts';
import { createInvitationRoute } from '../shared/routes.ts';
import { createInvitation } from '../shared/identity/invitations.ts';

export const handler = operation(createInvitationRoute, ({ caller, params, body }) =>
  createInvitation(caller, params.orgId, body),
);
