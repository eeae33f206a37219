import { operation } from '../shared/http/operation.ts';
import { listTeamsForUser } from '../shared/teams/teams.ts';
import type { ListTeamsForUserQuery } from '../shared/teams/inputs.ts';

export const handler = operation<{ orgId: string; userId: string }, ListTeamsForUserQuery>('listTeamsForOrgAndUser', ({ caller, params, query }) =>
  listTeamsForUser(caller, params.orgId, params.userId, query),
);
