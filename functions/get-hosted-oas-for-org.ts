import { operation } from '../shared/http/operation.ts';
import { getHostedOASForOrgRoute } from '../shared/routes.ts';
import { hostedDescriptionDownload } from '../shared/hosted-assets/oas.ts';

export const handler = operation(getHostedOASForOrgRoute, ({ caller, params, query }) =>
  hostedDescriptionDownload(caller, params.orgId, params.oasId, query.redirect),
);
