import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { batchGet, getItem, queryAll } from '../db/query.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { TrackerRecord, TicketRecord } from './model.ts';

// The stored form of tracker connections and of findings' tickets (docs/TRACKERS.md).

export async function getTracker(orgId: string, trackerId: string): Promise<TrackerRecord | undefined> {
  return fromItem<TrackerRecord>(await getItem(keys.tracker(orgId, trackerId)));
}

export async function trackersOfOrg(orgId: string): Promise<TrackerRecord[]> {
  const { pk, skPrefix } = keys.trackersOfOrg(orgId);
  return (await queryAll({ partition: pk, skPrefix, consistent: true })).map((item) => fromItem<TrackerRecord>(item)!);
}

/** Stores `tracker` (its revision already incremented), provided nobody changed it since revision - 1. */
export const putTracker = (tracker: TrackerRecord): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: { ...keys.tracker(tracker.organizationId, tracker.trackerId), entity: 'tracker', ...tracker },
    ...(tracker.revision > 1
      ? {
          ConditionExpression: 'revision = :previous',
          ExpressionAttributeValues: { ':previous': tracker.revision - 1 },
        }
      : { ConditionExpression: 'attribute_not_exists(pk)' }),
  },
});

export const deleteTrackerItem = (tracker: TrackerRecord): TransactItem => ({
  Delete: {
    TableName: config.tableName,
    Key: keys.tracker(tracker.organizationId, tracker.trackerId),
    ConditionExpression: 'revision = :revision',
    ExpressionAttributeValues: { ':revision': tracker.revision },
  },
});

type FindingRef = { applicationId: string; environmentId: string; findingHash: string };

export const ticketKey = (ref: FindingRef) => keys.ticket(ref.applicationId, ref.environmentId, ref.findingHash);

export async function getTicket(ref: FindingRef): Promise<TicketRecord | undefined> {
  return fromItem<TicketRecord>(await getItem(ticketKey(ref)));
}

export async function ticketsOfEnvironment(env: {
  applicationId: string;
  environmentId: string;
}): Promise<TicketRecord[]> {
  const { pk, skPrefix } = keys.ticketsOfEnvironment(env.applicationId, env.environmentId);
  return (await queryAll({ partition: pk, skPrefix, consistent: true })).map((item) => fromItem<TicketRecord>(item)!);
}

/** The tickets of these findings of one environment (by hash), for a page of findings. */
export async function ticketsOf(
  env: { applicationId: string; environmentId: string },
  hashes: string[],
): Promise<Map<string, TicketRecord>> {
  const unique = [...new Set(hashes)];
  if (unique.length === 0) return new Map();
  const items = await batchGet(unique.map((h) => keys.ticket(env.applicationId, env.environmentId, h)));
  return new Map(items.map((item) => fromItem<TicketRecord>(item)!).map((t) => [t.findingHash, t]));
}

/** Stores `ticket` (its version already incremented), provided nobody changed it since version - 1. */
export const putTicket = (ticket: TicketRecord) => ({
  TableName: config.tableName,
  Item: { ...ticketKey(ticket), entity: 'ticket', ...ticket },
  ...(ticket.version > 1
    ? { ConditionExpression: 'version = :previous', ExpressionAttributeValues: { ':previous': ticket.version - 1 } }
    : { ConditionExpression: 'attribute_not_exists(pk)' }),
});
