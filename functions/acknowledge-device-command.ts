import { operation } from '../shared/http/operation.ts';
import { acknowledgeDeviceCommandRoute } from '../shared/routes.ts';
import { acknowledgeCommand } from '../shared/perch/agents.ts';

export const handler = operation(acknowledgeDeviceCommandRoute, ({ caller, params, body }) =>
  acknowledgeCommand(caller, params.orgId, params.deviceId, params.commandId, body.applicationId),
);
