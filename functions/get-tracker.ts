import { operation } from '../shared/http/operation.ts';
import { getTrackerRoute } from '../shared/routes.ts';
import { getTrackerView } from '../shared/trackers/connections.ts';

export const handler = operation(getTrackerRoute, ({ params }) => getTrackerView(params.orgId, params.trackerId));
