import { operation } from '../shared/http/operation.ts';
import { refreshTokenRoute } from '../shared/routes.ts';
import { refresh, refreshReads } from '../shared/identity/sessions.ts';

export const handler = operation(refreshTokenRoute, ({ caller }) => refresh(caller), {
  prefetch: refreshReads,
});
