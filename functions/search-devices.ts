import { operation } from '../shared/http/operation.ts';
import { searchDevicesRoute } from '../shared/routes.ts';
import { searchDevices } from '../shared/perch/commands.ts';
import type { SearchDevicesBody } from '../shared/perch/inputs.ts';

export const handler = operation<{ orgId: string }, object, SearchDevicesBody>(
  searchDevicesRoute,
  ({ caller, params, body }) => searchDevices(caller, params.orgId, body),
);
