import { operation } from '../shared/http/operation.ts';
import { currentUser } from '../shared/sessions.ts';

export const handler = operation('getUser', ({ caller }) => currentUser(caller.userId));
