import { operation } from '../shared/http/operation.ts';
import { confirmSsoLinkRoute } from '../shared/routes.ts';
import { confirmSsoLink } from '../shared/sso/link.ts';

export const handler = operation(confirmSsoLinkRoute, ({ caller, body }) => confirmSsoLink(caller, body.ticket));
