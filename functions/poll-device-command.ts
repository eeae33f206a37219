import { operation } from '../shared/http/operation.ts';
import { pollDeviceCommandRoute } from '../shared/routes.ts';
import { pollCommand } from '../shared/perch/agents.ts';
import type { PollBody } from '../shared/perch/inputs.ts';

export const handler = operation<{ orgId: string; deviceId: string }, object, PollBody>(
  pollDeviceCommandRoute,
  ({ params, body }) => pollCommand(params.orgId, params.deviceId, body),
);
