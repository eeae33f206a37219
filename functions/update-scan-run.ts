import { operation } from '../shared/http/operation.ts';
import { updateScanRunRoute } from '../shared/routes.ts';
import { updateRun } from '../shared/perch/agents.ts';
import type { RunUpdateBody } from '../shared/perch/inputs.ts';

export const handler = operation<{ appId: string; scanKey: string }, object, RunUpdateBody>(
  updateScanRunRoute,
  ({ caller, params, body }) => updateRun(caller, params.appId, params.scanKey, body),
);
