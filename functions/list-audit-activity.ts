import { operation } from '../shared/http/operation.ts';
import { listAuditActivityRoute } from '../shared/routes.ts';
import { listAuditRecords } from '../shared/audit/audit-log.ts';

export const handler = operation(listAuditActivityRoute, ({ params, query }) => listAuditRecords(params.orgId, query));
