import { operation } from '../shared/http/operation.ts';
import { updateHostedScanSettingsRoute } from '../shared/routes.ts';
import { updateHostedScanSettings } from '../shared/perch/pools.ts';

export const handler = operation(updateHostedScanSettingsRoute, ({ caller, params, body }) =>
  updateHostedScanSettings(caller, params.appId, body),
);
