import { operation } from '../shared/http/operation.ts';
import { environmentDefaultConfig } from '../shared/applications/environment-default-config.ts';

export const handler = operation<{ appId: string; envId: string }>('getEnvironmentDefaultConfig', ({ caller, params }) =>
  environmentDefaultConfig(caller, params.appId, params.envId),
);
