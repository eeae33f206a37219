import { operation } from '../shared/http/operation.ts';
import { updateApplication } from '../shared/applications/applications.ts';

export const handler = operation<{ appId: string }, object, { name: string }>('updateApplication', ({ caller, params, body }) =>
  updateApplication(caller, params.appId, body),
);
