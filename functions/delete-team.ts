import { operation } from '../shared/http/operation.ts';
import { deleteTeam } from '../shared/teams/teams.ts';

export const handler = operation<{ orgId: string; teamId: string }>('deleteTeam', ({ caller, params }) => deleteTeam(caller, params.orgId, params.teamId));
