import { operation } from '../shared/http/operation.ts';
import { startScanRoute } from '../shared/routes.ts';
import { startScan } from '../shared/perch/commands.ts';
import type { PerchCommandBody } from '../shared/perch/inputs.ts';

export const handler = operation<{ appId: string }, object, PerchCommandBody>(
  startScanRoute,
  ({ caller, params, body }) => startScan(caller, params.appId, body),
);
