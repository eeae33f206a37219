import { operation } from '../shared/http/operation.ts';
import { completeSsoSignInRoute } from '../shared/routes.ts';
import { completeSsoSignIn } from '../shared/sso/sign-in.ts';

export const handler = operation(completeSsoSignInRoute, ({ body }) => completeSsoSignIn(body.query, body.binding));
