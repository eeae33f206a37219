import { operation } from '../shared/http/operation.ts';
import { acceptInvitationRoute } from '../shared/routes.ts';
import { acceptInvitation } from '../shared/identity/invitations.ts';
import type { AcceptInvitationBody } from '../shared/identity/inputs.ts';

export const handler = operation<object, object, AcceptInvitationBody>(acceptInvitationRoute, ({ body }) =>
  acceptInvitation(body),
);
