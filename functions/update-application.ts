import { operation } from '../shared/http/operation.ts';
import { updateApplicationRoute } from '../shared/routes.ts';
import { updateApplication } from '../shared/applications/applications.ts';

export const handler = operation(updateApplicationRoute, ({ caller, params, body }) =>
  updateApplication(caller, params.appId, body),
);
