import { operation } from '../shared/http/operation.ts';
import { updateApplicationTeamRoute } from '../shared/routes.ts';
import { updateApplicationTeam } from '../shared/teams/teams.ts';

export const handler = operation(updateApplicationTeamRoute, ({ caller, params, body }) =>
  updateApplicationTeam(caller, params.orgId, params.teamId, body),
);
