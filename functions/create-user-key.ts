import { operation } from '../shared/http/operation.ts';
import { createUserKeyRoute } from '../shared/routes.ts';
import { createUserKey } from '../shared/identity/user-keys.ts';
import type { CreateUserKeyBody } from '../shared/identity/inputs.ts';

export const handler = operation<object, object, CreateUserKeyBody>(createUserKeyRoute, ({ caller, body }) =>
  createUserKey(caller, body),
);
