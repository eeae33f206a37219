import { operation } from '../shared/http/operation.ts';
import { currentUser } from '../shared/identity/sessions.ts';

export const handler = operation('getUser', ({ caller }) => currentUser(caller.userId));
