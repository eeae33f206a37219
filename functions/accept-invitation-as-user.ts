import { operation } from '../shared/http/operation.ts';
import { acceptInvitationAsUserRoute } from '../shared/routes.ts';
import { acceptInvitationAsUser } from '../shared/identity/invitations.ts';

export const handler = operation(acceptInvitationAsUserRoute, ({ caller, body }) =>
  acceptInvitationAsUser(caller, body),
);
