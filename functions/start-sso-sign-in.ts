import { operation } from '../shared/http/operation.ts';
import { startSsoSignInRoute } from '../shared/routes.ts';
import { startSsoSignIn } from '../shared/sso/sign-in.ts';
import type { SsoStartBody } from '../shared/sso/inputs.ts';

export const handler = operation<object, object, SsoStartBody>(startSsoSignInRoute, ({ body }) =>
  startSsoSignIn(body.organizationId),
);
