import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys, OUTBOX_SHARDS } from '../db/keys.ts';
import { isConditionFailure } from '../db/items.ts';
import { queryItems } from '../db/query.ts';
import { config } from '../config.ts';
import { deliveryCreation } from '../webhooks/deliveries.ts';
import { renderBodies } from '../webhooks/payloads.ts';
import { webhooksOfOrg } from '../webhooks/repository.ts';
import { type WebhookRecord, derivedId, type OutboxEvent, type DeliveryRecord } from '../webhooks/model.ts';
import type { DeliverySender, QueueMessage } from './model.ts';
import { trackerMessage, type TrackerOutboxEvent, trackerEvent } from '../trackers/model.ts';
import { trackersOfOrg } from '../trackers/repository.ts';

// The relay (docs/WEBHOOKS.md, Delivery): hands each outbox event to the delivery queue, once per subscription that
// wants it. The outbox is the source of truth: an event leaves it only after its deliveries are recorded and
// queued, so a relay that stops half-way is simply run again. Running it again is harmless: a delivery's id and key
// derive from the event and the subscription (its record is created at most once), and the consumer skips a
// delivery already made.

/** Outbox events read per shard per pass. */
const RELAY_BATCH = 25;

/** Whether `webhook` wants `event`: its type, and the applications or team it is scoped to. */
export function wants(webhook: WebhookRecord, event: OutboxEvent): boolean {
  if (!webhook.enabled || !webhook.events.includes(event.type)) return false;
  if (webhook.applicationIds.length && !webhook.applicationIds.includes(event.applicationId)) return false;
  if (webhook.teamId && webhook.teamId !== event.teamId) return false;
  return true;
}

/** The delivery of `event` to `webhook`: the same pair always has the same id and key. */
export function deliveryOf(event: OutboxEvent, webhook: WebhookRecord, body: string): DeliveryRecord {
  return {
    deliveryId: derivedId(`delivery:${event.eventId}:${webhook.webhookId}`),
    webhookId: webhook.webhookId,
    organizationId: event.organizationId,
    eventId: event.eventId,
    event: event.type,
    createdAt: event.occurredAt,
    body,
    status: 'PENDING',
    attempts: [],
    attemptCount: 0,
  };
}

/** Records and queues the deliveries of one event, then removes it from the outbox. */
export async function relayEvent(event: OutboxEvent, queue: DeliverySender): Promise<number> {
  const targets = (await webhooksOfOrg(event.organizationId)).filter((webhook) => wants(webhook, event));
  const messages: QueueMessage[] = [];
  if (targets.length) {
    const bodies = await renderBodies(event, new Set(targets.map((t) => t.format)));
    for (const webhook of targets) {
      const delivery = deliveryOf(event, webhook, bodies.get(webhook.format)!);
      try {
        await db.send(new PutCommand(deliveryCreation(delivery).Put));
      } catch (error) {
        if (!isConditionFailure(error)) throw error; // recorded by an earlier pass: queued again, made once
      }
      messages.push({
        organizationId: event.organizationId,
        webhookId: webhook.webhookId,
        createdAt: delivery.createdAt,
        deliveryId: delivery.deliveryId,
      });
    }
  }
  // A completed scan is also work for the organization's issue trackers (docs/TRACKERS.md, Scans).
  if (event.type === 'scanCompleted' && (await trackersOfOrg(event.organizationId)).some((t) => t.enabled)) {
    const data = event.data as { scanId: string; envId: string };
    const job = {
      type: 'scan' as const,
      applicationId: event.applicationId,
      environmentId: data.envId,
      scanId: data.scanId,
    };
    messages.push(trackerMessage(trackerEvent(event.organizationId, job, event.occurredAt)));
  }
  if (messages.length) await queue.send(messages);
  await db.send(
    new DeleteCommand({ TableName: config.tableName, Key: keys.outboxEvent(event.eventId, event.occurredAt) }),
  );
  return messages.length;
}

/** Queues a tracker job (docs/TRACKERS.md, Delivery), then removes it from the outbox. */
async function relayTrackerJob(event: TrackerOutboxEvent, queue: DeliverySender): Promise<void> {
  await queue.send([trackerMessage(event)]);
  await db.send(
    new DeleteCommand({ TableName: config.tableName, Key: keys.outboxEvent(event.eventId, event.occurredAt) }),
  );
}

/** One pass over the outbox, oldest events first in each shard: what `npm start` runs (the table has no stream). */
export async function relayOutbox(queue: DeliverySender): Promise<number> {
  let relayed = 0;
  for (let shard = 0; shard < OUTBOX_SHARDS; shard++) {
    let read = 0;
    for await (const item of queryItems({
      partition: keys.outboxShard(shard).pk,
      consistent: true,
      pageLimit: RELAY_BATCH,
    })) {
      if (item.type === 'trackerJob') await relayTrackerJob(item as unknown as TrackerOutboxEvent, queue);
      else await relayEvent(item as unknown as OutboxEvent, queue);
      relayed++;
      if (++read >= RELAY_BATCH) break;
    }
  }
  return relayed;
}
