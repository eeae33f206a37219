import { operation } from '../shared/http/operation.ts';
import { getOrganizationTrendsRoute } from '../shared/routes.ts';
import { organizationTrends } from '../shared/trends/reads.ts';
import type { TrendsQuery } from '../shared/trends/inputs.ts';

export const handler = operation<{ orgId: string }, TrendsQuery>(
  getOrganizationTrendsRoute,
  ({ caller, params, query }) => organizationTrends(caller, params.orgId, query.days),
);
