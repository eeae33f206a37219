import { operation } from '../shared/http/operation.ts';
import { getApplicationRoute } from '../shared/routes.ts';
import { readApplication } from '../shared/applications/applications.ts';

export const handler = operation(getApplicationRoute, ({ caller, params }) => readApplication(caller, params.appId));
