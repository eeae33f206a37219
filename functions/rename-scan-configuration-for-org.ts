import { operation } from '../shared/http/operation.ts';
import { renameScanConfigurationForOrgRoute } from '../shared/routes.ts';
import { renameScanConfiguration } from '../shared/scan-configurations/configurations.ts';

export const handler = operation(renameScanConfigurationForOrgRoute, ({ caller, params, body }) =>
  renameScanConfiguration(caller, params.orgId, body),
);
