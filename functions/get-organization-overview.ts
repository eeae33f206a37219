import { operation } from '../shared/http/operation.ts';
import { getOrganizationOverviewRoute } from '../shared/routes.ts';
import { organizationOverview, overviewReads } from '../shared/overview/overview.ts';

export const handler = operation(
  getOrganizationOverviewRoute,
  ({ caller, params }) => organizationOverview(caller, params.orgId),
  { prefetch: overviewReads },
);
