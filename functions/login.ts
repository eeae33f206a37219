import { operation } from '../shared/http/operation.ts';
import { login } from '../shared/sessions.ts';

export const handler = operation('login', ({ headers }) => login(headers['x-apikey']));
