import { operation } from '../shared/http/operation.ts';
import { login } from '../shared/identity/sessions.ts';

export const handler = operation('login', ({ headers }) => login(headers['x-apikey']));
