import { operation } from '../shared/http/operation.ts';
import { replaceRepoAppMappingsRoute } from '../shared/routes.ts';
import { replaceRepositoryApplications } from '../shared/code-repositories/code-repositories.ts';

export const handler = operation(replaceRepoAppMappingsRoute, ({ caller, params, body }) =>
  replaceRepositoryApplications(
    caller,
    params.orgId,
    params.repoId,
    body.appInfos.map((a) => a.id),
  ),
);
