import { operation } from '../shared/http/operation.ts';
import { getEnvironmentTrendsRoute } from '../shared/routes.ts';
import { environmentTrends } from '../shared/trends/reads.ts';

export const handler = operation(getEnvironmentTrendsRoute, ({ caller, params, query }) =>
  environmentTrends(caller, params.orgId, params.appId, params.envId, query.days),
);
