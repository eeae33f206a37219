import { operation } from '../shared/http/operation.ts';
import { listAuditActivityRoute } from '../shared/routes.ts';
import type { AuditListQuery } from '../shared/applications/inputs.ts';
import { listAuditRecords } from '../shared/audit/audit-log.ts';

export const handler = operation<{ orgId: string }, AuditListQuery>(listAuditActivityRoute, ({ params, query }) =>
  listAuditRecords(params.orgId, query),
);
