import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { config, type SchedulerConfig } from '../config.ts';
import { db } from '../db/client.ts';
import { PEER_ATTEMPTS } from '../db/retry.ts';
import { logger } from '../context/logger.ts';
import { keys } from '../db/keys.ts';
import type { TransactItem } from '../db/transactions.ts';
import { eventBridgeExpression } from './cron.ts';
import { type ScheduledScanEvent, ScheduleRecord, ScheduleRef } from './model.ts';

// What wakes a schedule when it is due (docs/HOSTED-SCANS.md, Schedules, Where it runs). The table is the truth (the
// schedule's item); the clock only says when to look:
// - on AWS, EventBridge Scheduler: one schedule per entry, with its expression and time zone, invoking
//   functions/run-scheduled-scan.ts. Changed around the table's write: created or updated before it (and put back
//   when that write fails), deleted after it; one left over (a failed delete, a deleted application) finds no entry
//   when it fires and deletes itself.
// - locally (`npm start`), an entry per enabled schedule in the table at the time it is next due, written in the
//   schedule's own transaction, which the embedded scheduler (scripts/local/schedules.ts) reads.

/** A schedule's due entry of the local clock, at `dueAt`. */
const dueEntry = (schedule: ScheduleRecord, dueAt: number) => ({
  ...keys.scheduleDue(dueAt, schedule.applicationId, schedule.scheduleId),
  entity: 'scheduleDue',
  organizationId: schedule.organizationId,
  applicationId: schedule.applicationId,
  scheduleId: schedule.scheduleId,
  dueAt,
});

/** The local clock's items of a change from `before` to `after` (none on AWS): its due entry moved. */
export function clockItems(before: ScheduleRecord | undefined, after: ScheduleRecord | undefined): TransactItem[] {
  if (config.scheduler) return [];
  const was = before?.enabled ? before.dueAt : undefined;
  const will = after?.enabled ? after.dueAt : undefined;
  if (was === will) return [];
  const items: TransactItem[] = [];
  if (before && was !== undefined)
    items.push({
      Delete: {
        TableName: config.tableName,
        Key: keys.scheduleDue(was, before.applicationId, before.scheduleId),
      },
    });
  if (after && will !== undefined) items.push({ Put: { TableName: config.tableName, Item: dueEntry(after, will) } });
  return items;
}

/** The EventBridge schedule's name: one per entry, in the stack's group. */
export const eventBridgeName = (scheduleId: string) => `hawk-scan-${scheduleId}`;

function eventBridgeSchedule(schedule: ScheduleRecord, scheduler: SchedulerConfig) {
  const input: ScheduledScanEvent = {
    organizationId: schedule.organizationId,
    applicationId: schedule.applicationId,
    scheduleId: schedule.scheduleId,
    dueAt: '<aws.scheduler.scheduled-time>',
  };
  return {
    Name: eventBridgeName(schedule.scheduleId),
    GroupName: scheduler.group,
    ScheduleExpression: eventBridgeExpression(schedule.cron),
    ScheduleExpressionTimezone: schedule.timezone,
    State: schedule.enabled ? ('ENABLED' as const) : ('DISABLED' as const),
    FlexibleTimeWindow: { Mode: 'OFF' as const },
    Description: `hawk-api: scan schedule of application ${schedule.applicationId}`,
    Target: {
      Arn: scheduler.targetArn,
      RoleArn: scheduler.roleArn,
      Input: JSON.stringify(input),
      // A time missed is not made up later (MISSED_AFTER_MS): an invocation later than a minute is dropped, whatever
      // attempts of the retry policy's remain.
      RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: PEER_ATTEMPTS },
    },
  };
}

async function schedulerClient() {
  const { SchedulerClient } = await import('@aws-sdk/client-scheduler');
  return new SchedulerClient({ region: config.region });
}

/** Deletes the entry's EventBridge schedule; one already gone is as good. */
async function deleteEventBridgeSchedule(scheduler: SchedulerConfig, scheduleId: string): Promise<void> {
  const { DeleteScheduleCommand } = await import('@aws-sdk/client-scheduler');
  await (
    await schedulerClient()
  )
    .send(new DeleteScheduleCommand({ Name: eventBridgeName(scheduleId), GroupName: scheduler.group }))
    .catch((error: Error) => {
      if (error.name !== 'ResourceNotFoundException') throw error;
    });
}

/**
 * On AWS, makes EventBridge's schedule match `after` (created when `before` is undefined, updated, or deleted when
 * `after` is undefined); nothing locally.
 */
export async function syncClock(before: ScheduleRecord | undefined, after: ScheduleRecord | undefined): Promise<void> {
  const scheduler = config.scheduler;
  if (!scheduler) return;
  if (!after) return deleteEventBridgeSchedule(scheduler, before!.scheduleId);
  const { CreateScheduleCommand, UpdateScheduleCommand } = await import('@aws-sdk/client-scheduler');
  const input = eventBridgeSchedule(after, scheduler);
  const client = await schedulerClient();
  if (before) await client.send(new UpdateScheduleCommand(input));
  else await client.send(new CreateScheduleCommand(input));
}

/** A fire of an entry whose schedule is gone: its clock goes too (the leftover EventBridge schedule, the due entry). */
export async function forgetClock(ref: ScheduleRef, dueAt: number): Promise<void> {
  if (config.scheduler) {
    await deleteEventBridgeSchedule(config.scheduler, ref.scheduleId);
    logger.info('a schedule that is gone fired: its EventBridge schedule was deleted', { ...ref });
    return;
  }
  await db.send(
    new DeleteCommand({ TableName: config.tableName, Key: keys.scheduleDue(dueAt, ref.applicationId, ref.scheduleId) }),
  );
}
