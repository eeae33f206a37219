import { operation } from '../shared/http/operation.ts';
import { bulkTriageFindingsRoute } from '../shared/routes.ts';
import { bulkTriageFindings } from '../shared/findings/triage.ts';
import type { BulkTriageBody } from '../shared/findings/inputs.ts';

export const handler = operation<{ orgId: string; appId: string; envId: string }, unknown, BulkTriageBody>(
  bulkTriageFindingsRoute,
  ({ caller, params, body }) => bulkTriageFindings(caller, params.orgId, params.appId, params.envId, body),
);
