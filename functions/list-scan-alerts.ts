import { operation } from '../shared/http/operation.ts';
import { listScanAlertsRoute } from '../shared/routes.ts';
import { listScanAlerts } from '../shared/scans/results.ts';
import type { ListScanAlertsQuery } from '../shared/scans/inputs.ts';

export const handler = operation<{ scanId: string }, ListScanAlertsQuery>(
  listScanAlertsRoute,
  ({ caller, params, query }) => listScanAlerts(caller, params.scanId, query),
);
