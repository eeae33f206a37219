import { operation } from '../shared/http/operation.ts';
import { revokeInvitationRoute } from '../shared/routes.ts';
import { revokeInvitation } from '../shared/identity/invitations.ts';

export const handler = operation(revokeInvitationRoute, ({ caller, params }) =>
  revokeInvitation(caller, params.orgId, params.invitationId),
);
