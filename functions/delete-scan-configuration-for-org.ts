import { operation } from '../shared/http/operation.ts';
import { deleteScanConfigurationForOrgRoute } from '../shared/routes.ts';
import { removeScanConfiguration } from '../shared/scan-configurations/configurations.ts';

export const handler = operation(deleteScanConfigurationForOrgRoute, ({ caller, params }) =>
  removeScanConfiguration(caller, params.orgId, params.configName),
);
