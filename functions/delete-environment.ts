import { operation } from '../shared/http/operation.ts';
import { deleteEnvironment } from '../shared/applications/environments.ts';

export const handler = operation<{ appId: string; envId: string }>('deleteEnvironment', ({ caller, params }) =>
  deleteEnvironment(caller, params.appId, params.envId),
);
