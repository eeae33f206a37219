import { operation } from '../shared/http/operation.ts';
import { retestFindingRoute } from '../shared/routes.ts';
import { retestFinding } from '../shared/perch/retests.ts';

export const handler = operation(retestFindingRoute, ({ caller, params, query }) =>
  retestFinding(caller, params.appId, params.findingHash, query.env),
);
