import { operation } from '../shared/http/operation.ts';
import { listTrackersRoute } from '../shared/routes.ts';
import { listTrackers } from '../shared/trackers/connections.ts';

export const handler = operation(listTrackersRoute, ({ params }) => listTrackers(params.orgId));
