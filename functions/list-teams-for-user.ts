import { operation } from '../shared/http/operation.ts';
import { listTeamsForOrgAndUserRoute } from '../shared/routes.ts';
import { listTeamsForUser } from '../shared/teams/teams.ts';
import type { ListTeamsForUserQuery } from '../shared/teams/inputs.ts';

export const handler = operation<{ orgId: string; userId: string }, ListTeamsForUserQuery>(
  listTeamsForOrgAndUserRoute,
  ({ caller, params, query }) => listTeamsForUser(caller, params.orgId, params.userId, query),
);
