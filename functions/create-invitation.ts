import { operation } from '../shared/http/operation.ts';
import { createInvitationRoute } from '../shared/routes.ts';
import { createInvitation } from '../shared/identity/invitations.ts';
import type { CreateInvitationBody } from '../shared/identity/inputs.ts';

export const handler = operation<{ orgId: string }, object, CreateInvitationBody>(
  createInvitationRoute,
  ({ caller, params, body }) => createInvitation(caller, params.orgId, body),
);
