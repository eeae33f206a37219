import { operation } from '../shared/http/operation.ts';
import { pollDeviceCommandRoute } from '../shared/routes.ts';
import { pollCommand } from '../shared/perch/agents.ts';

export const handler = operation(pollDeviceCommandRoute, ({ params, body }) =>
  pollCommand(params.orgId, params.deviceId, body),
);
