import { operation } from '../shared/http/operation.ts';
import { deleteEnvironmentRoute } from '../shared/routes.ts';
import { deleteEnvironment } from '../shared/deletions/deletions.ts';

export const handler = operation(deleteEnvironmentRoute, ({ caller, params }) =>
  deleteEnvironment(caller, params.appId, params.envId),
);
