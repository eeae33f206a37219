import { operation } from '../shared/http/operation.ts';
import { updateTeamsRoute } from '../shared/routes.ts';
import { updateTeam } from '../shared/teams/teams.ts';
import type { UpdateTeamBody } from '../shared/teams/inputs.ts';

export const handler = operation<{ orgId: string; teamId: string }, object, UpdateTeamBody>(
  updateTeamsRoute,
  ({ caller, params, body }) => updateTeam(caller, params.orgId, params.teamId, body),
);
