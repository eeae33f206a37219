import { operation } from '../shared/http/operation.ts';
import { createApplicationRoute } from '../shared/routes.ts';
import { createApplication } from '../shared/applications/applications.ts';
import type { CreateApplicationBody } from '../shared/applications/inputs.ts';

export const handler = operation<{ orgId: string }, object, CreateApplicationBody>(
  createApplicationRoute,
  ({ caller, params, body }) => createApplication(caller, params.orgId, body),
);
