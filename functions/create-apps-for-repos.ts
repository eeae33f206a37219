import { operation } from '../shared/http/operation.ts';
import { createAppsForReposRoute } from '../shared/routes.ts';
import { createApplicationsForRepositories } from '../shared/code-repositories/code-repositories.ts';
import type { CreateAppsForRepos } from '../shared/code-repositories/inputs.ts';

export const handler = operation<{ orgId: string }, unknown, CreateAppsForRepos>(
  createAppsForReposRoute,
  ({ caller, params, body }) => createApplicationsForRepositories(caller, params.orgId, body),
);
