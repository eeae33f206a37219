import { operation } from '../shared/http/operation.ts';
import { listRepositoriesRoute } from '../shared/routes.ts';
import { listRepositories } from '../shared/code-repositories/code-repositories.ts';

export const handler = operation(listRepositoriesRoute, ({ caller, params, query }) =>
  listRepositories(caller, params.orgId, query),
);
