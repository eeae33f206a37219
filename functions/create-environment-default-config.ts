import { operation } from '../shared/http/operation.ts';
import { createEnvironmentDefaultConfigRoute } from '../shared/routes.ts';
import { replaceEnvironmentDefaultConfig } from '../shared/applications/environment-default-config.ts';
import type { CreateEnvironmentDefaultConfig } from '../shared/applications/inputs.ts';

export const handler = operation<{ appId: string; envId: string }, unknown, CreateEnvironmentDefaultConfig>(
  createEnvironmentDefaultConfigRoute,
  ({ caller, params, body }) => replaceEnvironmentDefaultConfig(caller, params.appId, params.envId, body),
);
