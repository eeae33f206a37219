import { operation } from '../shared/http/operation.ts';
import { repositorySensitiveData } from '../shared/code-repositories/code-repositories.ts';

export const handler = operation<{ orgId: string; repoId: string }, { page?: string; pageToken: number; pageSize: number }>('listRepoSensitiveData', ({ params, query }) =>
  repositorySensitiveData(params.orgId, params.repoId, query),
);
