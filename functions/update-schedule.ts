import { operation } from '../shared/http/operation.ts';
import { updateScheduleRoute } from '../shared/routes.ts';
import { updateSchedule } from '../shared/schedules/schedules.ts';

export const handler = operation(updateScheduleRoute, ({ caller, params, body }) =>
  updateSchedule(caller, params.appId, params.scheduleId, body),
);
