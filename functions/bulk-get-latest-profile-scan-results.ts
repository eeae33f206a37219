import { operation } from '../shared/http/operation.ts';
import { bulkGetLatestProfileScanResultsRoute } from '../shared/routes.ts';
import { bulkGetLatestProfileScanResults } from '../shared/profiles/profiles.ts';

export const handler = operation(bulkGetLatestProfileScanResultsRoute, ({ caller, params, body }) =>
  bulkGetLatestProfileScanResults(caller, params.orgId, body),
);
