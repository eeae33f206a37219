import { operation } from '../shared/http/operation.ts';
import { currentUser, currentUserReads } from '../shared/identity/sessions.ts';

export const handler = operation('getUser', ({ caller }) => currentUser(caller.userId), { prefetch: currentUserReads });
