import { operation } from '../shared/http/operation.ts';
import { pollDeviceCommandRoute } from '../shared/routes.ts';
import { pollCommand, pollReads } from '../shared/perch/agents.ts';

export const handler = operation(
  pollDeviceCommandRoute,
  ({ caller, params, body }) => pollCommand(caller, params.orgId, params.deviceId, body),
  { prefetch: pollReads },
);
