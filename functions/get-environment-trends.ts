import { operation } from '../shared/http/operation.ts';
import { getEnvironmentTrendsRoute } from '../shared/routes.ts';
import { environmentTrends } from '../shared/trends/reads.ts';
import type { TrendsQuery } from '../shared/trends/inputs.ts';

export const handler = operation<{ orgId: string; appId: string; envId: string }, TrendsQuery>(
  getEnvironmentTrendsRoute,
  ({ caller, params, query }) => environmentTrends(caller, params.orgId, params.appId, params.envId, query.days),
);
