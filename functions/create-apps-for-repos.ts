import { operation } from '../shared/http/operation.ts';
import { createApplicationsForRepositories } from '../shared/code-repositories/code-repositories.ts';
import type { CreateAppsForRepos } from '../shared/code-repositories/inputs.ts';

export const handler = operation<{ orgId: string }, unknown, CreateAppsForRepos>('createAppsForRepos', ({ caller, params, body }) =>
  createApplicationsForRepositories(caller, params.orgId, body),
);
