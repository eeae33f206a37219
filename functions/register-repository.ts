import { operation } from '../shared/http/operation.ts';
import { registerRepository } from '../shared/code-repositories/code-repositories.ts';
import type { RegisterRepository } from '../shared/code-repositories/inputs.ts';

export const handler = operation<{ orgId: string }, unknown, RegisterRepository>('registerRepository', ({ caller, params, body }) =>
  registerRepository(caller, params.orgId, body),
);
