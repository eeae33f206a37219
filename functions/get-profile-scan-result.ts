import { operation } from '../shared/http/operation.ts';
import { getProfileScanResultRoute } from '../shared/routes.ts';
import { getProfileScanResult } from '../shared/profiles/profiles.ts';

export const handler = operation(getProfileScanResultRoute, ({ caller, params }) =>
  getProfileScanResult(caller, params.appId, params.scanId),
);
