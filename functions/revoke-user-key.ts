import { operation } from '../shared/http/operation.ts';
import { revokeUserKeyRoute } from '../shared/routes.ts';
import { revokeUserKey } from '../shared/identity/user-keys.ts';

export const handler = operation(revokeUserKeyRoute, ({ caller, params }) => revokeUserKey(caller, params.keyId));
