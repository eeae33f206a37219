import { operation } from '../shared/http/operation.ts';
import { acceptInvitationRoute } from '../shared/routes.ts';
import { acceptInvitation } from '../shared/identity/invitations.ts';

export const handler = operation(acceptInvitationRoute, ({ body }) => acceptInvitation(body));
