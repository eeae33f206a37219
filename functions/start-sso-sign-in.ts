import { operation } from '../shared/http/operation.ts';
import { startSsoSignInRoute } from '../shared/routes.ts';
import { startSsoSignIn } from '../shared/sso/sign-in.ts';

export const handler = operation(startSsoSignInRoute, ({ body }) => startSsoSignIn(body.organizationId));
