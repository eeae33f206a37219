import { operation } from '../shared/http/operation.ts';
import { getOrganizationTrendsRoute } from '../shared/routes.ts';
import { organizationTrends } from '../shared/trends/reads.ts';

export const handler = operation(getOrganizationTrendsRoute, ({ caller, params, query }) =>
  organizationTrends(caller, params.orgId, query.days),
);
