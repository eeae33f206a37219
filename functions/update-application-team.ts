import { operation } from '../shared/http/operation.ts';
import { updateApplicationTeamRoute } from '../shared/routes.ts';
import { updateApplicationTeam } from '../shared/teams/teams.ts';
import type { UpdateApplicationTeamBody } from '../shared/teams/inputs.ts';

export const handler = operation<{ orgId: string; teamId: string }, object, UpdateApplicationTeamBody>(
  updateApplicationTeamRoute,
  ({ caller, params, body }) => updateApplicationTeam(caller, params.orgId, params.teamId, body),
);
