import { operation } from '../shared/http/operation.ts';
import { listScansRoute } from '../shared/routes.ts';
import { listScans } from '../shared/scans/results.ts';

export const handler = operation(listScansRoute, ({ caller, params, query }) => listScans(caller, params.orgId, query));
