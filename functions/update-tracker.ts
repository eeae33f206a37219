import { operation } from '../shared/http/operation.ts';
import { updateTrackerRoute } from '../shared/routes.ts';
import { updateTracker } from '../shared/trackers/connections.ts';

export const handler = operation(updateTrackerRoute, ({ caller, params, body }) =>
  updateTracker(caller, params.orgId, params.trackerId, body),
);
