import { randomUUID } from 'node:crypto';
import { accessibleApplication } from '../applications/access.ts';
import type { ApplicationRecord } from '../applications/model.ts';
import { auditEntry } from '../audit/entries.ts';
import { scopeAllows, type Caller } from '../context/caller.ts';
import { logger } from '../context/logger.ts';
import { conditionFailed } from '../db/items.ts';
import { transactWrite } from '../db/transactions.ts';
import { failedCondition, retryOnConflict } from '../db/retry.ts';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { getOrganizationAsset } from '../hosted-assets/organization-assets.ts';
import { clockItems, syncClock } from './clock.ts';
import { checkSchedule, nextOccurrence } from './cron.ts';
import { MAX_SCHEDULES_PER_APP, type CreateScheduleBody, type UpdateScheduleBody } from './inputs.ts';
import { deleteScheduleItem, getSchedule, putSchedule, scheduleCountChange, schedulesOfApp } from './repository.ts';
import { type ScheduleRecord } from './model.ts';

// The schedules of an application's hosted scans (docs/HOSTED-SCANS.md, Schedules): created, listed, changed and
// removed by createSchedule, listSchedules, updateSchedule and deleteSchedule, each change atomic with its
// APPLICATION_MODIFIED entry and its clock (shared/schedules/clock.ts).

const iso = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : '');

/** The API's view of a schedule; `nextRunAt` is computed now (empty while paused). */
export function toSchedule(schedule: ScheduleRecord, now = Date.now()) {
  return {
    id: schedule.scheduleId,
    env: schedule.env,
    cron: schedule.cron,
    timezone: schedule.timezone,
    kind: schedule.kind,
    scanConfig: schedule.scanConfig ?? '',
    enabled: schedule.enabled,
    nextRunAt: iso(schedule.enabled ? nextOccurrence(schedule.cron, schedule.timezone, now) : undefined),
    lastRunAt: iso(schedule.lastRunAt),
    lastRunScanKey: schedule.lastRunScanKey ?? '',
    lastResult: schedule.lastResult ?? '',
    lastResultAt: iso(schedule.lastDueAt),
    lastMessage: schedule.lastMessage ?? '',
    createdAt: iso(schedule.createdAt),
    updatedAt: iso(schedule.updatedAt),
  };
}

const auditPayload = (app: ApplicationRecord, schedule: ScheduleRecord, change: string) => ({
  applicationId: app.applicationId,
  appName: app.name,
  change,
  scheduleId: schedule.scheduleId,
  envName: schedule.env,
  cron: schedule.cron,
  timezone: schedule.timezone,
  kind: schedule.kind,
  enabled: schedule.enabled,
});

/** The application, seen by a caller who may start its hosted scans (404 otherwise, as startScan answers). */
async function scheduledApplication(caller: Caller, appId: string) {
  const { app, membership } = await accessibleApplication(caller, appId, { teamRestricted: true });
  if (app.applicationType !== 'CLOUD' || !app.cloudScanTarget?.targetURL)
    throw badRequest(
      `application ${appId} is not a CLOUD application: scheduled scans are hosted scans, which need applicationType CLOUD and a cloudScanTargetURL`,
    );
  return { app, membership };
}

/** 400 unless what a schedule would start can start: its expression, zone, configuration; a profile needs write:device. */
async function checkStart(caller: Caller, app: ApplicationRecord, schedule: ScheduleRecord, mayDrive: boolean) {
  checkSchedule(schedule.cron, schedule.timezone);
  if (schedule.scanConfig && !(await getOrganizationAsset('configuration', app.organizationId, schedule.scanConfig)))
    throw badRequest(`scanConfig: no scan configuration named ${schedule.scanConfig} in the organization`);
  if (schedule.kind === 'PROFILE' && !(mayDrive && scopeAllows(caller.scope, 'write:device')))
    throw forbidden('kind: a PROFILE schedule starts profile scans, which need write:device');
}

/** A change re-read and built again while another request (or the schedule's own start) changes it first. */
const changeRetry = (scheduleId: string) => ({
  conflict: failedCondition(['scheduleChanged']),
  exhausted: () => conflict(`schedule ${scheduleId} is being changed concurrently; retry`),
});

async function existingSchedule(app: ApplicationRecord, scheduleId: string): Promise<ScheduleRecord> {
  const schedule = await getSchedule(app.applicationId, scheduleId);
  if (!schedule || schedule.organizationId !== app.organizationId) throw notFound(`schedule ${scheduleId} not found`);
  return schedule;
}

/**
 * Writes the change from `before` to `after` (with its audit entry and other `items`) and its clock: EventBridge's
 * schedule first, put back when the table's write fails (docs/HOSTED-SCANS.md, Schedules).
 */
async function writeChange(
  before: ScheduleRecord | undefined,
  after: ScheduleRecord | undefined,
  items: Parameters<typeof transactWrite>[0],
) {
  if (after) await syncClock(before, after);
  try {
    await transactWrite([...items, ...clockItems(before, after)]);
  } catch (error) {
    if (after)
      await syncClock(after, before).catch((undo: unknown) =>
        logger.error('the EventBridge schedule could not be put back', { scheduleId: after.scheduleId, undo }),
      );
    throw error;
  }
  if (!after) await syncClock(before, undefined);
}

/** POST /api/v1/app/{appId}/schedules (createSchedule). */
export async function createSchedule(caller: Caller, appId: string, body: CreateScheduleBody) {
  const { app, membership } = await scheduledApplication(caller, appId);
  const now = Date.now();
  const schedule: ScheduleRecord = {
    organizationId: app.organizationId,
    applicationId: appId,
    scheduleId: randomUUID(),
    env: body.env,
    cron: body.cron.replace(/\s+/g, ' '),
    timezone: body.timezone,
    kind: body.kind ?? 'SCAN',
    ...(body.scanConfig ? { scanConfig: body.scanConfig } : {}),
    enabled: body.enabled ?? true,
    userId: caller.userId,
    ...(caller.scope ? { scope: caller.scope } : {}),
    createdAt: now,
    updatedAt: now,
    revision: 1,
  };
  await checkStart(caller, app, schedule, membership.permissions.includes('write:device'));
  schedule.dueAt = nextOccurrence(schedule.cron, schedule.timezone, now);
  try {
    await writeChange(undefined, schedule, [
      putSchedule(schedule),
      scheduleCountChange(appId, 1),
      auditEntry(caller, app.organizationId, 'APPLICATION_MODIFIED', auditPayload(app, schedule, 'scheduleAdded'), now),
    ]);
  } catch (error) {
    if (conditionFailed(error, 'scheduleCount'))
      throw badRequest(`the application has ${MAX_SCHEDULES_PER_APP} schedules, the most it may: remove one first`);
    throw error;
  }
  return { schedule: toSchedule(schedule, now) };
}

/** GET /api/v1/app/{appId}/schedules (listSchedules): oldest first. */
export async function listSchedules(caller: Caller, appId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  const schedules = (await schedulesOfApp(appId)).filter((s) => s.organizationId === app.organizationId);
  const now = Date.now();
  return { schedules: schedules.sort((a, b) => a.createdAt - b.createdAt).map((s) => toSchedule(s, now)) };
}

/**
 * PATCH /api/v1/app/{appId}/schedules/{scheduleId} (updateSchedule): the fields given change. Its runs go on being
 * started as the schedule's creator.
 */
export async function updateSchedule(caller: Caller, appId: string, scheduleId: string, body: UpdateScheduleBody) {
  const { app, membership } = await scheduledApplication(caller, appId);
  return retryOnConflict(changeRetry(scheduleId), async () => {
    const current = await existingSchedule(app, scheduleId);
    const now = Date.now();
    const { scanConfig: _config, ...kept } = current;
    const scanConfig = body.scanConfig === undefined ? current.scanConfig : (body.scanConfig ?? undefined);
    const next: ScheduleRecord = {
      ...kept,
      env: body.env ?? current.env,
      cron: body.cron?.replace(/\s+/g, ' ') ?? current.cron,
      timezone: body.timezone ?? current.timezone,
      kind: body.kind ?? current.kind,
      ...(scanConfig ? { scanConfig } : {}),
      enabled: body.enabled ?? current.enabled,
      updatedAt: now,
      revision: current.revision + 1,
    };
    await checkStart(caller, app, next, membership.permissions.includes('write:device'));
    next.dueAt = nextOccurrence(next.cron, next.timezone, now);
    await writeChange(current, next, [
      putSchedule(next),
      auditEntry(caller, app.organizationId, 'APPLICATION_MODIFIED', auditPayload(app, next, 'scheduleModified'), now),
    ]);
    return { schedule: toSchedule(next, now) };
  });
}

/** DELETE /api/v1/app/{appId}/schedules/{scheduleId} (deleteSchedule): it starts nothing from now on. */
export async function deleteSchedule(caller: Caller, appId: string, scheduleId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  return retryOnConflict(changeRetry(scheduleId), async () => {
    const current = await existingSchedule(app, scheduleId);
    await writeChange(current, undefined, [
      deleteScheduleItem(current),
      scheduleCountChange(appId, -1),
      auditEntry(caller, app.organizationId, 'APPLICATION_MODIFIED', auditPayload(app, current, 'scheduleRemoved')),
    ]);
    return {};
  });
}
