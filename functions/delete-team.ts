import { operation } from '../shared/http/operation.ts';
import { deleteTeamRoute } from '../shared/routes.ts';
import { deleteTeam } from '../shared/teams/teams.ts';

export const handler = operation(deleteTeamRoute, ({ caller, params }) =>
  deleteTeam(caller, params.orgId, params.teamId),
);
