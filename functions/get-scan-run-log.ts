import { operation } from '../shared/http/operation.ts';
import { getScanRunLogRoute } from '../shared/routes.ts';
import { readRunLog } from '../shared/perch/commands.ts';

export const handler = operation(getScanRunLogRoute, ({ caller, params, query }) =>
  readRunLog(caller, params.appId, query.scanKey),
);
