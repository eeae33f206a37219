import { operation } from '../shared/http/operation.ts';
import { updateEnvironment } from '../shared/applications/environments.ts';

export const handler = operation<{ appId: string; envId: string }, object, { name: string }>('updateEnvironment', ({ caller, params, body }) =>
  updateEnvironment(caller, params.appId, params.envId, body),
);
