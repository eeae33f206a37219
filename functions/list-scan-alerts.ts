import { operation } from '../shared/http/operation.ts';
import { listScanAlerts } from '../shared/scans/results.ts';
import type { ListScanAlertsQuery } from '../shared/scans/inputs.ts';

export const handler = operation<{ scanId: string }, ListScanAlertsQuery>('listScanAlerts', ({ caller, params, query }) =>
  listScanAlerts(caller, params.scanId, query),
);
