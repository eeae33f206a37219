import { operation } from '../shared/http/operation.ts';
import { createTeamRoute } from '../shared/routes.ts';
import { createTeam } from '../shared/teams/teams.ts';
import type { CreateTeamBody } from '../shared/teams/inputs.ts';

export const handler = operation<{ orgId: string }, object, CreateTeamBody>(
  createTeamRoute,
  ({ caller, params, body }) => createTeam(caller, params.orgId, body),
);
