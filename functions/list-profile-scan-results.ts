import { operation } from '../shared/http/operation.ts';
import { listProfileScanResultsRoute } from '../shared/routes.ts';
import { listProfileScanResults } from '../shared/profiles/profiles.ts';

export const handler = operation(listProfileScanResultsRoute, ({ caller, params, query }) =>
  listProfileScanResults(caller, params.appId, query.limit),
);
