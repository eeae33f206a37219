import { operation } from '../shared/http/operation.ts';
import { getUserRoute } from '../shared/routes.ts';
import { currentUser, currentUserReads } from '../shared/identity/sessions.ts';

export const handler = operation(getUserRoute, ({ caller }) => currentUser(caller), {
  prefetch: currentUserReads,
});
