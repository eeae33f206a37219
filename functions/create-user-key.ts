import { operation } from '../shared/http/operation.ts';
import { createUserKeyRoute } from '../shared/routes.ts';
import { createUserKey } from '../shared/identity/user-keys.ts';

export const handler = operation(createUserKeyRoute, ({ caller, body }) => createUserKey(caller, body));
