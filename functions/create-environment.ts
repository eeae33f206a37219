import { operation } from '../shared/http/operation.ts';
import { createEnvironmentRoute } from '../shared/routes.ts';
import { createEnvironment } from '../shared/applications/environments.ts';

export const handler = operation(createEnvironmentRoute, ({ caller, params, query, body }) =>
  createEnvironment(caller, params.appId, body, query.host),
);
