import { operation } from '../shared/http/operation.ts';
import { listRepositoriesRoute } from '../shared/routes.ts';
import { listRepositories } from '../shared/code-repositories/code-repositories.ts';
import type { ListRepositoriesQuery } from '../shared/code-repositories/inputs.ts';

export const handler = operation<{ orgId: string }, ListRepositoriesQuery>(
  listRepositoriesRoute,
  ({ caller, params, query }) => listRepositories(caller, params.orgId, query),
);
