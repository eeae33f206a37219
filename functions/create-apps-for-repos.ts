import { operation } from '../shared/http/operation.ts';
import { createAppsForReposRoute } from '../shared/routes.ts';
import { createApplicationsForRepositories } from '../shared/code-repositories/code-repositories.ts';

export const handler = operation(createAppsForReposRoute, ({ caller, params, body }) =>
  createApplicationsForRepositories(caller, params.orgId, body),
);
