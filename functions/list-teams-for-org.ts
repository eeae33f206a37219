import { operation } from '../shared/http/operation.ts';
import { listTeamsForOrgRoute } from '../shared/routes.ts';
import { listTeamsForOrg } from '../shared/teams/teams.ts';
import type { ListTeamsForOrgQuery } from '../shared/teams/inputs.ts';

export const handler = operation<{ orgId: string }, ListTeamsForOrgQuery>(listTeamsForOrgRoute, ({ params, query }) =>
  listTeamsForOrg(params.orgId, query),
);
