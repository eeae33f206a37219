import { operation } from '../shared/http/operation.ts';
import { createTrackerRoute } from '../shared/routes.ts';
import { createTracker } from '../shared/trackers/connections.ts';
import type { CreateTrackerBody } from '../shared/trackers/inputs.ts';

export const handler = operation<{ orgId: string }, object, CreateTrackerBody>(
  createTrackerRoute,
  ({ caller, params, body }) => createTracker(caller, params.orgId, body),
);
