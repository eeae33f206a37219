import { config } from '../config.ts';
import { logger } from '../context/logger.ts';
import { conditionFailed } from '../db/items.ts';
import { queryAll } from '../db/query.ts';
import { keys } from '../db/keys.ts';
import { transactWrite } from '../db/transactions.ts';
import { HttpError } from '../errors.ts';
import { createNamedCaller } from '../identity/caller.ts';
import { startScan } from '../perch/commands.ts';
import { perchCommandBody } from '../perch/inputs.ts';
import type { PerchRun } from '../perch/model.ts';
import { launchProfileScan } from '../profiles/profiles.ts';
import { clockItems, forgetClock } from './clock.ts';
import { isOccurrence, nextOccurrence } from './cron.ts';
import { getSchedule, putSchedule } from './repository.ts';
import {
  MISSED_AFTER_MS,
  type FireOutcome,
  type ScheduleRecord,
  type ScheduleRef,
  type ScheduleResult,
} from './model.ts';

// A schedule's due time (docs/HOSTED-SCANS.md, Schedules): the run starts as startScan (or launchProfileScan) starts
// it, with the same checks, queue and concurrency, acting as the schedule's creator. Whichever clock woke it
// (EventBridge Scheduler's function on AWS, the embedded scheduler locally), the schedule's item decides.

/**
 * The run's start, as its creator (named in its SCAN_STARTED entry: their user item is read here, as the pipeline
 * reads a request's caller's), in the schedule's own transaction with `items` (the schedule's last run).
 */
async function startRun(schedule: ScheduleRecord, items: (run: PerchRun) => ReturnType<typeof clockItems>) {
  const caller = await createNamedCaller(
    { userId: schedule.userId, apiKeyId: '', ...(schedule.scope ? { scope: schedule.scope } : {}) },
    schedule.kind === 'PROFILE' ? 'write:device' : 'write:scan',
  );
  const startedBy = { details: { scheduleId: schedule.scheduleId }, items };
  if (schedule.kind === 'PROFILE') return launchProfileScan(caller, schedule.applicationId, startedBy);
  const body = perchCommandBody.parse({
    command: { command: 'START' },
    env: schedule.env,
    ...(schedule.scanConfig ? { scanConfig: schedule.scanConfig } : {}),
  });
  return startScan(caller, schedule.applicationId, body, startedBy);
}

/** Why a start was refused, for the schedule's `lastMessage`. */
function refusal(schedule: ScheduleRecord, error: HttpError): string {
  if (error.statusCode === 401 || error.statusCode === 403)
    return `the schedule's creator (user ${schedule.userId}) may no longer start hosted scans of this application: update or recreate the schedule as someone who may`;
  return error.message.slice(0, 1000);
}

/** Acts on the schedule's due time `dueAt` (ms), at most once; `now` is when it is acted on. */
export async function fireSchedule(ref: ScheduleRef, dueAt: number, now = Date.now()): Promise<FireOutcome> {
  const schedule = await getSchedule(ref.applicationId, ref.scheduleId);
  // An entry of another organization's schedule (never one EventBridge was given) touches nothing of it.
  if (schedule && schedule.organizationId !== ref.organizationId) return 'GONE';
  if (!schedule) {
    await forgetClock(ref, dueAt);
    return 'GONE';
  }
  if (!schedule.enabled) return 'PAUSED';
  // Changed since (its expression, or already acted on: a delivery sent twice): nothing to do at this time.
  if (!isOccurrence(schedule.cron, schedule.timezone, dueAt) || dueAt < (schedule.dueAt ?? 0)) return 'NOT_DUE';
  const moved: ScheduleRecord = {
    ...schedule,
    dueAt: nextOccurrence(schedule.cron, schedule.timezone, Math.max(now, dueAt)),
    revision: schedule.revision + 1,
  };
  const write = (after: ScheduleRecord) =>
    transactWrite([putSchedule(after), ...clockItems(schedule, after)]).catch((error: unknown) => {
      if (!conditionFailed(error, 'scheduleChanged')) throw error;
    });
  if (now - dueAt > MISSED_AFTER_MS) {
    await write(moved);
    return 'MISSED';
  }
  const acted = { ...moved, lastDueAt: dueAt, updatedAt: now };
  try {
    await startRun(schedule, (run) => [
      putSchedule({
        ...acted,
        lastRunAt: run.createdAt,
        lastRunScanKey: run.scanKey,
        lastResult: 'STARTED',
        lastMessage: '',
      }),
      ...clockItems(schedule, acted),
    ]);
    return 'STARTED';
  } catch (error) {
    // Paused, changed or deleted while it started: it starts nothing.
    if (conditionFailed(error, 'scheduleChanged')) return 'CHANGED';
    if (!(error instanceof HttpError) || error.statusCode >= 500) throw error;
    // A run of the application still active (409) is skipped; any other refusal is recorded as it was said.
    const result: ScheduleResult = error.statusCode === 409 ? 'SKIPPED' : 'FAILED';
    await write({ ...acted, lastResult: result, lastMessage: refusal(schedule, error) });
    logger.info('a scheduled scan did not start', { ...ref, result, reason: error.message });
    return result;
  }
}

/**
 * The local clock's turn (`npm start`, scripts/local/schedules.ts): acts on every schedule due by `now`, oldest
 * first. One that fails stays due, and is tried again on the next turn until it is missed.
 */
export async function fireDueSchedules(now = Date.now()): Promise<number> {
  if (config.scheduler) return 0;
  const { pk, skTo } = keys.schedulesDueBy(now);
  const due = await queryAll({ partition: pk, skTo, consistent: true });
  for (const entry of due) {
    const { organizationId, applicationId, scheduleId, dueAt } = entry as ScheduleRef & { dueAt: number };
    try {
      await fireSchedule({ organizationId, applicationId, scheduleId }, dueAt, Date.now());
    } catch (error) {
      logger.error('a scheduled scan could not be started', { applicationId, scheduleId, error });
    }
  }
  return due.length;
}
