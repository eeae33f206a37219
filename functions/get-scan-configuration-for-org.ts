import { operation } from '../shared/http/operation.ts';
import { organizationAssetDownload } from '../shared/hosted-assets/organization-assets.ts';

export const handler = operation<{ orgId: string; configName: string }, { redirect: boolean }>('getScanConfigurationForOrg', ({ params, query }) =>
  organizationAssetDownload('configuration', params.orgId, params.configName, query.redirect),
);
