import { operation } from '../shared/http/operation.ts';
import { updateTeamsRoute } from '../shared/routes.ts';
import { updateTeam } from '../shared/teams/teams.ts';

export const handler = operation(updateTeamsRoute, ({ caller, params, body }) =>
  updateTeam(caller, params.orgId, params.teamId, body),
);
