import { operation } from '../shared/http/operation.ts';
import { getEnvironmentDefaultConfigRoute } from '../shared/routes.ts';
import { environmentDefaultConfig } from '../shared/scans/environment-default-config.ts';

export const handler = operation(getEnvironmentDefaultConfigRoute, ({ caller, params }) =>
  environmentDefaultConfig(caller, params.appId, params.envId),
);
