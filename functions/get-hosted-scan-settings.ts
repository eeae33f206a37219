import { operation } from '../shared/http/operation.ts';
import { getHostedScanSettingsRoute } from '../shared/routes.ts';
import { getHostedScanSettings } from '../shared/perch/pools.ts';

export const handler = operation(getHostedScanSettingsRoute, ({ caller, params }) =>
  getHostedScanSettings(caller, params.appId),
);
