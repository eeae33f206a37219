import { operation } from '../shared/http/operation.ts';
import { launchProfileScanRoute } from '../shared/routes.ts';
import { launchProfileScan } from '../shared/profiles/profiles.ts';

export const handler = operation(launchProfileScanRoute, ({ caller, params }) =>
  launchProfileScan(caller, params.appId),
);
