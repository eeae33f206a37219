import { operation } from '../shared/http/operation.ts';
import { registerDeviceRoute } from '../shared/routes.ts';
import { registerDevice } from '../shared/perch/agents.ts';

export const handler = operation(registerDeviceRoute, ({ caller, params, body }) =>
  registerDevice(caller, params.orgId, body),
);
