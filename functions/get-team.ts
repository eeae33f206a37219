import { operation } from '../shared/http/operation.ts';
import { readTeam } from '../shared/teams/teams.ts';

export const handler = operation<{ orgId: string; teamId: string }>('getTeam', ({ params }) => readTeam(params.orgId, params.teamId));
