import { operation } from '../shared/http/operation.ts';
import { getRetestRoute } from '../shared/routes.ts';
import { getRetest } from '../shared/perch/retests.ts';

export const handler = operation(getRetestRoute, ({ caller, params }) =>
  getRetest(caller, params.appId, params.retestId),
);
