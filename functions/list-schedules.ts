import { operation } from '../shared/http/operation.ts';
import { listSchedulesRoute } from '../shared/routes.ts';
import { listSchedules } from '../shared/schedules/schedules.ts';

export const handler = operation(listSchedulesRoute, ({ caller, params }) => listSchedules(caller, params.appId));
