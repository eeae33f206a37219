import { operation } from '../shared/http/operation.ts';
import { registerRepositoryRoute } from '../shared/routes.ts';
import { registerRepository } from '../shared/code-repositories/code-repositories.ts';

export const handler = operation(registerRepositoryRoute, ({ caller, params, body }) =>
  registerRepository(caller, params.orgId, body),
);
