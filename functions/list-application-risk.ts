import { operation } from '../shared/http/operation.ts';
import { listApplicationRiskRoute } from '../shared/routes.ts';
import { listApplicationRisk } from '../shared/overview/application-risk.ts';

export const handler = operation(listApplicationRiskRoute, ({ caller, params, query }) =>
  listApplicationRisk(caller, params.orgId, query),
);
