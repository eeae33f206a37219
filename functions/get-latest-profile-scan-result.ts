import { operation } from '../shared/http/operation.ts';
import { getLatestProfileScanResultRoute } from '../shared/routes.ts';
import { getLatestProfileScanResult } from '../shared/profiles/profiles.ts';

export const handler = operation(getLatestProfileScanResultRoute, ({ caller, params }) =>
  getLatestProfileScanResult(caller, params.appId),
);
