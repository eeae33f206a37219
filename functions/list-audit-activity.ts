import { operation } from '../shared/http/operation.ts';
import type { AuditListQuery } from '../shared/applications/inputs.ts';
import { listAuditRecords } from '../shared/audit/audit-log.ts';

export const handler = operation<{ orgId: string }, AuditListQuery>('listAuditActivity', ({ params, query }) =>
  listAuditRecords(params.orgId, query),
);
