import { operation } from '../shared/http/operation.ts';
import { createTeamRoute } from '../shared/routes.ts';
import { createTeam } from '../shared/teams/teams.ts';

export const handler = operation(createTeamRoute, ({ caller, params, body }) => createTeam(caller, params.orgId, body));
