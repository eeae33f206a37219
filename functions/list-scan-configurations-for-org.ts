import { operation } from '../shared/http/operation.ts';
import { listScanConfigurationsForOrgRoute } from '../shared/routes.ts';
import { scanConfigurationList } from '../shared/scan-configurations/configurations.ts';

export const handler = operation(listScanConfigurationsForOrgRoute, ({ params, query }) =>
  scanConfigurationList(params.orgId, query),
);
