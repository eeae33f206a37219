import { operation } from '../shared/http/operation.ts';
import { completeSsoSignInRoute } from '../shared/routes.ts';
import { completeSsoSignIn } from '../shared/sso/sign-in.ts';
import type { SsoCallbackBody } from '../shared/sso/inputs.ts';

export const handler = operation<object, object, SsoCallbackBody>(completeSsoSignInRoute, ({ body }) =>
  completeSsoSignIn(body.query, body.binding),
);
