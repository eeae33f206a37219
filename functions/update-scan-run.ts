import { operation } from '../shared/http/operation.ts';
import { updateScanRunRoute } from '../shared/routes.ts';
import { updateRun } from '../shared/perch/agents.ts';

export const handler = operation(updateScanRunRoute, ({ caller, params, body }) =>
  updateRun(caller, params.appId, params.scanKey, body),
);
