import { operation } from '../shared/http/operation.ts';
import { updateTrackerRoute } from '../shared/routes.ts';
import { updateTracker } from '../shared/trackers/connections.ts';
import type { UpdateTrackerBody } from '../shared/trackers/inputs.ts';

export const handler = operation<{ orgId: string; trackerId: string }, object, UpdateTrackerBody>(
  updateTrackerRoute,
  ({ caller, params, body }) => updateTracker(caller, params.orgId, params.trackerId, body),
);
