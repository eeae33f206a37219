import { operation } from '../shared/http/operation.ts';
import { listUserKeysRoute } from '../shared/routes.ts';
import { listUserKeys } from '../shared/identity/user-keys.ts';

export const handler = operation(listUserKeysRoute, ({ caller }) => listUserKeys(caller));
