import { operation } from '../shared/http/operation.ts';
import { getTeamRoute } from '../shared/routes.ts';
import { readTeam } from '../shared/teams/teams.ts';

export const handler = operation(getTeamRoute, ({ params }) => readTeam(params.orgId, params.teamId));
