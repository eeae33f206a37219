import { operation } from '../shared/http/operation.ts';
import { listScans } from '../shared/scan-results.ts';
import type { ListScansQuery } from '../shared/scan-inputs.ts';

export const handler = operation<{ orgId: string }, ListScansQuery>('listScans', ({ caller, params, query }) => listScans(caller, params.orgId, query));
