import { operation } from '../shared/http/operation.ts';
import { listScansRoute } from '../shared/routes.ts';
import { listScans } from '../shared/scans/results.ts';
import type { ListScansQuery } from '../shared/scans/inputs.ts';

export const handler = operation<{ orgId: string }, ListScansQuery>(listScansRoute, ({ caller, params, query }) =>
  listScans(caller, params.orgId, query),
);
