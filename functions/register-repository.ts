import { operation } from '../shared/http/operation.ts';
import { registerRepositoryRoute } from '../shared/routes.ts';
import { registerRepository } from '../shared/code-repositories/code-repositories.ts';
import type { RegisterRepository } from '../shared/code-repositories/inputs.ts';

export const handler = operation<{ orgId: string }, unknown, RegisterRepository>(
  registerRepositoryRoute,
  ({ caller, params, body }) => registerRepository(caller, params.orgId, body),
);
