import { operation } from '../shared/http/operation.ts';
import { getScanConfigurationForOrgRoute } from '../shared/routes.ts';
import { scanConfigurationDownload } from '../shared/scans/organization-configurations.ts';

export const handler = operation(getScanConfigurationForOrgRoute, ({ params, query }) =>
  scanConfigurationDownload(params.orgId, params.configName, query.redirect),
);
