import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem, named } from '../db/items.ts';
import { queryAll } from '../db/query.ts';
import type { TransactItem } from '../db/transactions.ts';
import { MAX_SCHEDULES_PER_APP } from './inputs.ts';
import { type ScheduleRecord } from './model.ts';

// Scan schedules in the table (docs/HOSTED-SCANS.md, Schedules): one item per schedule in its application's
// partition (deleted with it), and the application's count of them, which bounds how many it may have.

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
