import { operation } from '../shared/http/operation.ts';
import { getScanStatusRoute } from '../shared/routes.ts';
import { getScanStatus } from '../shared/perch/commands.ts';

export const handler = operation(getScanStatusRoute, ({ caller, params }) => getScanStatus(caller, params.appId));
