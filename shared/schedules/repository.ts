import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem, named } from '../db/items.ts';
import { queryAll } from '../db/query.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { KeyScope } from '../context/caller.ts';
import { MAX_SCHEDULES_PER_APP, type ScheduleKind } from './inputs.ts';

// Scan schedules in the table (docs/HOSTED-SCANS.md, Schedules): one item per schedule in its application's
// partition (deleted with it), and the application's count of them, which bounds how many it may have.

/** What became of the schedule's last time: a run STARTED, SKIPPED (a run was active), FAILED (the start refused). */
export type ScheduleResult = 'STARTED' | 'SKIPPED' | 'FAILED';

export interface ScheduleRecord {
  organizationId: string;
  applicationId: string;
  scheduleId: string;
  env: string;
  cron: string;
  timezone: string;
  kind: ScheduleKind;
  scanConfig?: string;
  enabled: boolean;
  /** Whose runs it starts: its creator's, with the creator's key's narrowing, checked again at every start. */
  userId: string;
  scope?: KeyScope;
  /** When it is next due, as of its last write (the local clock's entry; the answers compute it afresh). */
  dueAt?: number;
  /** The last time it was due and acted on (a run started, or a skip or failure recorded): never acted on twice. */
  lastDueAt?: number;
  lastRunAt?: number;
  lastRunScanKey?: string;
  lastResult?: ScheduleResult;
  lastMessage?: string;
  createdAt: number;
  updatedAt: number;
  revision: number;
}

export type ScheduleRef = Pick<ScheduleRecord, 'organizationId' | 'applicationId' | 'scheduleId'>;

export async function getSchedule(appId: string, scheduleId: string): Promise<ScheduleRecord | undefined> {
  const out = await db.send(
    new GetCommand({ TableName: config.tableName, Key: keys.schedule(appId, scheduleId), ConsistentRead: true }),
  );
  return fromItem<ScheduleRecord>(out.Item);
}

export async function schedulesOfApp(appId: string): Promise<ScheduleRecord[]> {
  const { pk, skPrefix } = keys.schedulesOfApp(appId);
  return (await queryAll({ partition: pk, skPrefix, consistent: true })).map((item) => fromItem<ScheduleRecord>(item)!);
}

/** Stores `schedule` (its revision already incremented), provided nobody changed it since revision - 1. */
export const putSchedule = (schedule: ScheduleRecord): TransactItem =>
  named('scheduleChanged', {
    Put: {
      TableName: config.tableName,
      Item: { ...keys.schedule(schedule.applicationId, schedule.scheduleId), entity: 'schedule', ...schedule },
      ...(schedule.revision > 1
        ? {
            ConditionExpression: 'revision = :previous',
            ExpressionAttributeValues: { ':previous': schedule.revision - 1 },
          }
        : { ConditionExpression: 'attribute_not_exists(pk)' }),
    },
  });

export const deleteScheduleItem = (schedule: ScheduleRecord): TransactItem =>
  named('scheduleChanged', {
    Delete: {
      TableName: config.tableName,
      Key: keys.schedule(schedule.applicationId, schedule.scheduleId),
      ConditionExpression: 'revision = :revision',
      ExpressionAttributeValues: { ':revision': schedule.revision },
    },
  });

/** The application's count of schedules moved by `delta`; a create fails here (`scheduleCount`) at the bound. */
export const scheduleCountChange = (appId: string, delta: 1 | -1): TransactItem =>
  named('scheduleCount', {
    Update: {
      TableName: config.tableName,
      Key: keys.scheduleCount(appId),
      UpdateExpression: 'SET entity = :entity ADD #count :delta',
      ...(delta > 0 && {
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
      }),
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: {
        ':entity': 'scheduleCount',
        ':delta': delta,
        ...(delta > 0 && { ':max': MAX_SCHEDULES_PER_APP }),
      },
    },
  });
