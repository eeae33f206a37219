import { operation } from '../shared/http/operation.ts';
import { listInvitationsRoute } from '../shared/routes.ts';
import { listInvitations } from '../shared/identity/invitations.ts';

export const handler = operation(listInvitationsRoute, ({ caller, params }) => listInvitations(caller, params.orgId));
