import { operation } from '../shared/http/operation.ts';
import { removeScanConfiguration } from '../shared/scan-configurations/configurations.ts';

export const handler = operation<{ orgId: string; configName: string }>('deleteScanConfigurationForOrg', ({ caller, params }) =>
  removeScanConfiguration(caller, params.orgId, params.configName),
);
