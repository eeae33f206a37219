import { operation } from '../shared/http/operation.ts';
import { getScanPolicyForOrgRoute } from '../shared/routes.ts';
import { organizationAssetDownload } from '../shared/hosted-assets/organization-assets.ts';

export const handler = operation(getScanPolicyForOrgRoute, ({ params, query }) =>
  organizationAssetDownload('policy', params.orgId, params.policyName, query.redirect),
);
