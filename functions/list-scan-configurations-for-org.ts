import { operation } from '../shared/http/operation.ts';
import { scanConfigurationList } from '../shared/scan-configurations/configurations.ts';
import type { ListScanConfigurationsQuery } from '../shared/scan-configurations/inputs.ts';

export const handler = operation<{ orgId: string }, ListScanConfigurationsQuery>('listScanConfigurationsForOrg', ({ params, query }) =>
  scanConfigurationList(params.orgId, query),
);
