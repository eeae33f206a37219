import { operation } from '../shared/http/operation.ts';
import { createScheduleRoute } from '../shared/routes.ts';
import { createSchedule } from '../shared/schedules/schedules.ts';

export const handler = operation(createScheduleRoute, ({ caller, params, body }) =>
  createSchedule(caller, params.appId, body),
);
