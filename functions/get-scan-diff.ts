import { operation } from '../shared/http/operation.ts';
import { getScanDiffRoute } from '../shared/routes.ts';
import { scanDiff } from '../shared/scans/diff.ts';

export const handler = operation(getScanDiffRoute, ({ caller, params, query }) =>
  scanDiff(caller, params.scanId, query),
);
