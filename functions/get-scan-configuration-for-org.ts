import { operation } from '../shared/http/operation.ts';
import { getScanConfigurationForOrgRoute } from '../shared/routes.ts';
import { organizationAssetDownload } from '../shared/hosted-assets/organization-assets.ts';

export const handler = operation(getScanConfigurationForOrgRoute, ({ params, query }) =>
  organizationAssetDownload('configuration', params.orgId, params.configName, query.redirect),
);
