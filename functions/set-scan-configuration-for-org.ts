import { operation } from '../shared/http/operation.ts';
import { setScanConfigurationForOrgRoute } from '../shared/routes.ts';
import { saveScanConfiguration } from '../shared/scans/organization-configurations.ts';

export const handler = operation(setScanConfigurationForOrgRoute, ({ caller, params, body }) =>
  saveScanConfiguration(caller, params.orgId, body),
);
