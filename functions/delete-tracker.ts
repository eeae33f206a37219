import { operation } from '../shared/http/operation.ts';
import { deleteTrackerRoute } from '../shared/routes.ts';
import { deleteTracker } from '../shared/trackers/connections.ts';

export const handler = operation(deleteTrackerRoute, ({ caller, params }) =>
  deleteTracker(caller, params.orgId, params.trackerId),
);
