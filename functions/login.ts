import { operation } from '../shared/http/operation.ts';
import { loginRoute } from '../shared/routes.ts';
import { login, loginReads } from '../shared/identity/sessions.ts';

export const handler = operation(loginRoute, ({ headers }) => login(headers['x-apikey']), { prefetch: loginReads });
