import { operation } from '../shared/http/operation.ts';
import { login, loginReads } from '../shared/identity/sessions.ts';

export const handler = operation('login', ({ headers }) => login(headers['x-apikey']), { prefetch: loginReads });
