import { operation } from '../shared/http/operation.ts';
import { assignFindingsRoute } from '../shared/routes.ts';
import { assignFindings } from '../shared/findings/assignee.ts';

export const handler = operation(assignFindingsRoute, ({ caller, params, body }) =>
  assignFindings(caller, params.orgId, params.appId, params.envId, body),
);
