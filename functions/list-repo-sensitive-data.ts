import { operation } from '../shared/http/operation.ts';
import { listRepoSensitiveDataRoute } from '../shared/routes.ts';
import { repositorySensitiveData } from '../shared/code-repositories/code-repositories.ts';

export const handler = operation(listRepoSensitiveDataRoute, ({ params, query }) =>
  repositorySensitiveData(params.orgId, params.repoId, query),
);
