import { operation } from '../shared/http/operation.ts';
import { createTrackerRoute } from '../shared/routes.ts';
import { createTracker } from '../shared/trackers/connections.ts';

export const handler = operation(createTrackerRoute, ({ caller, params, body }) =>
  createTracker(caller, params.orgId, body),
);
