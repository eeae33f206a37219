import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { batchGet, getItem, queryAll } from '../db/query.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';
import { type TrackerRecord, type TicketRecord, ticketIdOf } from './model.ts';

// The stored form of tracker connections and of issues' tickets (docs/TRACKERS.md).

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

// The stored form of tickets: one per issue (docs/ISSUES.md), keyed by its id (ticketIdOf).

type EnvRef = { applicationId: string; environmentId: string };

export const ticketKey = (ticket: EnvRef & { issueId?: string; findingHash: string }) =>
  keys.ticket(ticket.applicationId, ticket.environmentId, ticketIdOf(ticket));

export async function getTicket(env: EnvRef, ticketId: string): Promise<TicketRecord | undefined> {
  return fromItem<TicketRecord>(await getItem(keys.ticket(env.applicationId, env.environmentId, ticketId)));
}

export async function ticketsOfEnvironment(env: EnvRef): Promise<TicketRecord[]> {
  const { pk, skPrefix } = keys.ticketsOfEnvironment(env.applicationId, env.environmentId);
  return (await queryAll({ partition: pk, skPrefix, consistent: true })).map((item) => fromItem<TicketRecord>(item)!);
}

/**
 * The ticket of each of these findings of one environment (by hash), for a page of findings: its issue's, else (made
 * before tickets were per issue) its own. One BatchGetItem.
 */
export async function ticketsOf(
  env: EnvRef,
  findings: { findingHash: string; issueId?: string }[],
): Promise<Map<string, TicketRecord>> {
  const ids = [...new Set(findings.flatMap((f) => [ticketIdOf(f), f.findingHash]))];
  if (ids.length === 0) return new Map();
  const items = await batchGet(ids.map((id) => keys.ticket(env.applicationId, env.environmentId, id)));
  const byId = new Map(items.map((item) => fromItem<TicketRecord>(item)!).map((t) => [ticketIdOf(t), t]));
  const out = new Map<string, TicketRecord>();
  for (const f of findings) {
    const ticket = byId.get(ticketIdOf(f)) ?? byId.get(f.findingHash);
    if (ticket) out.set(f.findingHash, ticket);
  }
  return out;
}

/**
 * The ticket an issue has: its own, else one made for one of its detections before tickets were per issue (so that
 * promoting another detection makes no second). `detections`: the issue's findings' hashes.
 */
export async function ticketOfIssue(
  env: EnvRef,
  issueId: string,
  detections: string[],
): Promise<TicketRecord | undefined> {
  const ids = [...new Set([issueId, ...detections])];
  const tickets = (
    await batchGet(
      ids.map((id) => keys.ticket(env.applicationId, env.environmentId, id)),
      undefined,
      true,
    )
  ).map((item) => fromItem<TicketRecord>(item)!);
  return tickets.find((t) => ticketIdOf(t) === issueId) ?? tickets.sort((a, b) => a.createdAt - b.createdAt)[0];
}

/** Stores `ticket` (its version already incremented), provided nobody changed it since version - 1. */
export const putTicket = (ticket: TicketRecord) => ({
  TableName: config.tableName,
  Item: { ...ticketKey(ticket), entity: 'ticket', ...ticket },
  ...(ticket.version > 1
    ? { ConditionExpression: 'version = :previous', ExpressionAttributeValues: { ':previous': ticket.version - 1 } }
    : { ConditionExpression: 'attribute_not_exists(pk)' }),
});
