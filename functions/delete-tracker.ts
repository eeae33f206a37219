import { operation } from '../shared/http/operation.ts';
import { deleteTrackerRoute } from '../shared/routes.ts';
import { deleteTracker } from '../shared/trackers/connections.ts';

export const handler = operation<{ orgId: string; trackerId: string }>(deleteTrackerRoute, ({ caller, params }) =>
  deleteTracker(caller, params.orgId, params.trackerId),
);
