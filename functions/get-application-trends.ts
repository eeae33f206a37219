import { operation } from '../shared/http/operation.ts';
import { getApplicationTrendsRoute } from '../shared/routes.ts';
import { applicationTrends } from '../shared/trends/reads.ts';

export const handler = operation(getApplicationTrendsRoute, ({ caller, params, query }) =>
  applicationTrends(caller, params.orgId, params.appId, query.days),
);
