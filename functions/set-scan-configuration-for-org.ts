import { operation } from '../shared/http/operation.ts';
import { setScanConfigurationForOrgRoute } from '../shared/routes.ts';
import { upsertScanConfiguration } from '../shared/scan-configurations/upsert.ts';

export const handler = operation(setScanConfigurationForOrgRoute, ({ caller, params, body }) =>
  upsertScanConfiguration(caller, params.orgId, body),
);
