import { operation } from '../shared/http/operation.ts';
import { signOutRoute } from '../shared/routes.ts';
import { signOut } from '../shared/identity/sso-sessions.ts';

export const handler = operation(signOutRoute, ({ caller }) => signOut(caller));
