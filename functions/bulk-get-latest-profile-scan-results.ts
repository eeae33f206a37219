import { operation } from '../shared/http/operation.ts';
import { bulkGetLatestProfileScanResultsRoute } from '../shared/routes.ts';
import { bulkGetLatestProfileScanResults } from '../shared/profiles/profiles.ts';
import type { BulkProfileResultsBody } from '../shared/profiles/inputs.ts';

export const handler = operation<{ orgId: string }, object, BulkProfileResultsBody>(
  bulkGetLatestProfileScanResultsRoute,
  ({ caller, params, body }) => bulkGetLatestProfileScanResults(caller, params.orgId, body),
);
