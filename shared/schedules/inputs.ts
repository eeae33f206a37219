import * as z from 'zod/mini';
import { environmentNameSchema } from '../applications/model.ts';
import { SCHEDULE_KINDS } from './model.ts';

// Request inputs of the schedule operations (docs/HOSTED-SCANS.md, Schedules). Strict bodies: an unknown field (a
// misspelt `enabled`, which would leave a schedule running) is refused. The cron expression and the time zone are
// checked by the domain (shared/schedules/cron.ts), which names the field in its 400.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/** The most schedules one application may have. */
export const MAX_SCHEDULES_PER_APP = 20;

const cronSchema = () => z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(100));
const timezoneSchema = () => z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(64));
const scanConfigSchema = () => z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(255));
const kindSchema = () => z.enum(SCHEDULE_KINDS, { error: `must be one of ${SCHEDULE_KINDS.join(', ')}` });

/** POST /api/v1/app/{appId}/schedules. */
export const createScheduleBody = schema(() =>
  z.strictObject({
    env: environmentNameSchema,
    cron: cronSchema(),
    timezone: timezoneSchema(),
    scanConfig: z.optional(scanConfigSchema()),
    enabled: z.optional(z.boolean()),
    kind: z.optional(kindSchema()),
  }),
);
export type CreateScheduleBody = z.output<typeof createScheduleBody>;

/** PATCH /api/v1/app/{appId}/schedules/{scheduleId}: the fields given change; `scanConfig: null` clears it. */
export const updateScheduleBody = schema(() =>
  z.strictObject({
    env: z.optional(environmentNameSchema),
    cron: z.optional(cronSchema()),
    timezone: z.optional(timezoneSchema()),
    scanConfig: z.optional(z.nullable(scanConfigSchema())),
    enabled: z.optional(z.boolean()),
    kind: z.optional(kindSchema()),
  }),
);
export type UpdateScheduleBody = z.output<typeof updateScheduleBody>;
