import { operation } from '../shared/http/operation.ts';
import { listScanConfigurationsForOrgRoute } from '../shared/routes.ts';
import { scanConfigurationList } from '../shared/scan-configurations/configurations.ts';
import type { ListScanConfigurationsQuery } from '../shared/scan-configurations/inputs.ts';

export const handler = operation<{ orgId: string }, ListScanConfigurationsQuery>(
  listScanConfigurationsForOrgRoute,
  ({ params, query }) => scanConfigurationList(params.orgId, query),
);
