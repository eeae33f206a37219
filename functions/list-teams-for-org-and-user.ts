import { operation } from '../shared/http/operation.ts';
import { listTeamsForOrgAndUserRoute } from '../shared/routes.ts';
import { listTeamsForUser } from '../shared/teams/teams.ts';

export const handler = operation(listTeamsForOrgAndUserRoute, ({ caller, params, query }) =>
  listTeamsForUser(caller, params.orgId, params.userId, query),
);
