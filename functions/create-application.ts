import { operation } from '../shared/http/operation.ts';
import { createApplicationRoute } from '../shared/routes.ts';
import { createApplication } from '../shared/applications/applications.ts';

export const handler = operation(createApplicationRoute, ({ caller, params, body }) =>
  createApplication(caller, params.orgId, body),
);
