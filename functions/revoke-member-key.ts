import { operation } from '../shared/http/operation.ts';
import { revokeMemberKeyRoute } from '../shared/routes.ts';
import { revokeMemberKey } from '../shared/identity/user-keys.ts';

export const handler = operation(revokeMemberKeyRoute, ({ caller, params }) =>
  revokeMemberKey(caller, params.orgId, params.userId, params.keyId),
);
