import { operation } from '../shared/http/operation.ts';
import { bulkTriageFindingsRoute } from '../shared/routes.ts';
import { bulkTriageFindings } from '../shared/findings/triage.ts';

export const handler = operation(bulkTriageFindingsRoute, ({ caller, params, body }) =>
  bulkTriageFindings(caller, params.orgId, params.appId, params.envId, body),
);
