import { operation } from '../shared/http/operation.ts';
import { replaceEnvironmentDefaultConfig } from '../shared/applications/environment-default-config.ts';
import type { CreateEnvironmentDefaultConfig } from '../shared/applications/inputs.ts';

export const handler = operation<{ appId: string; envId: string }, unknown, CreateEnvironmentDefaultConfig>('createEnvironmentDefaultConfig', ({ caller, params, body }) =>
  replaceEnvironmentDefaultConfig(caller, params.appId, params.envId, body),
);
