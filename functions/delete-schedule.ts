import { operation } from '../shared/http/operation.ts';
import { deleteScheduleRoute } from '../shared/routes.ts';
import { deleteSchedule } from '../shared/schedules/schedules.ts';

export const handler = operation(deleteScheduleRoute, ({ caller, params }) =>
  deleteSchedule(caller, params.appId, params.scheduleId),
);
