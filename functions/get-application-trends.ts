import { operation } from '../shared/http/operation.ts';
import { getApplicationTrendsRoute } from '../shared/routes.ts';
import { applicationTrends } from '../shared/trends/reads.ts';
import type { TrendsQuery } from '../shared/trends/inputs.ts';

export const handler = operation<{ orgId: string; appId: string }, TrendsQuery>(
  getApplicationTrendsRoute,
  ({ caller, params, query }) => applicationTrends(caller, params.orgId, params.appId, query.days),
);
