import { operation } from '../shared/http/operation.ts';
import { listDevicesRoute } from '../shared/routes.ts';
import { listDevices } from '../shared/perch/agents.ts';

export const handler = operation(listDevicesRoute, ({ caller, params }) => listDevices(caller, params.orgId));
