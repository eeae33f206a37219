import { operation } from '../shared/http/operation.ts';
import { updateEnvironmentRoute } from '../shared/routes.ts';
import { updateEnvironment } from '../shared/applications/environments.ts';

export const handler = operation(updateEnvironmentRoute, ({ caller, params, body }) =>
  updateEnvironment(caller, params.appId, params.envId, body),
);
