import { operation } from '../shared/http/operation.ts';
import { listTeamsForOrgRoute } from '../shared/routes.ts';
import { listTeamsForOrg } from '../shared/teams/teams.ts';

export const handler = operation(listTeamsForOrgRoute, ({ params, query }) => listTeamsForOrg(params.orgId, query));
