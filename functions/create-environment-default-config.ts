import { operation } from '../shared/http/operation.ts';
import { createEnvironmentDefaultConfigRoute } from '../shared/routes.ts';
import { replaceEnvironmentDefaultConfig } from '../shared/scans/environment-default-config.ts';

export const handler = operation(createEnvironmentDefaultConfigRoute, ({ caller, params, body }) =>
  replaceEnvironmentDefaultConfig(caller, params.appId, params.envId, body),
);
