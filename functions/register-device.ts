import { operation } from '../shared/http/operation.ts';
import { registerDeviceRoute } from '../shared/routes.ts';
import { registerDevice } from '../shared/perch/agents.ts';
import type { RegisterDeviceBody } from '../shared/perch/inputs.ts';

export const handler = operation<{ orgId: string }, object, RegisterDeviceBody>(
  registerDeviceRoute,
  ({ caller, params, body }) => registerDevice(caller, params.orgId, body),
);
