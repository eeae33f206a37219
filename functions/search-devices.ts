import { operation } from '../shared/http/operation.ts';
import { searchDevicesRoute } from '../shared/routes.ts';
import { searchDevices } from '../shared/perch/commands.ts';

export const handler = operation(searchDevicesRoute, ({ caller, params, body }) =>
  searchDevices(caller, params.orgId, body),
);
