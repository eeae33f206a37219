import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { auditEntry } from '../audit/entries.ts';
import { db } from '../db/client.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { config } from '../config.ts';
import { conflict, notFound } from '../errors.ts';
import type { Caller } from '../context/caller.ts';
import { attemptRecord, deliveriesOfWebhook, deliveryCreation, getDelivery } from '../webhooks/deliveries.ts';
import { DELIVERIES_LISTED, toDelivery, type DeliveryRecord, auditPayload } from '../webhooks/model.ts';
import { testBody } from '../webhooks/payloads.ts';
import { sqsSender } from './sqs-queue.ts';
import { tableQueue } from './table-queue.ts';
import { existingWebhook } from '../webhooks/subscriptions.ts';
import { TEST_EVENT, DeliverySender } from './model.ts';

// Deliveries a person asks for (docs/WEBHOOKS.md, Testing and redelivering): a test event to a subscription
// (testWebhook) and another delivery of an event already sent (redeliverWebhookDelivery). Both take the same path as
// an event's deliveries: a record in the delivery log, a message on the delivery queue, the consumer's signed send
// to the address checked then, its retries. The record and the audit entry are one transaction; the message follows.
/** How long testWebhook waits for the first attempt's outcome, at most (within the API's 29 s). */
const TEST_WAIT_CAP_MS = 12_000;
/** How often it looks at the delivery while it waits. */
const TEST_POLL_MS = 100;

/** The queue: SQS on AWS, `npm start`'s in-table queue locally (the consumer takes from either the same way). */
const deliveryQueue = (): DeliverySender => (config.webhookQueueUrl ? sqsSender() : tableQueue());

/** Records `delivery` with its audit entry, then queues it; a delivery that cannot be queued is marked DEAD. */
async function recordAndQueue(delivery: DeliveryRecord, audit: TransactItem) {
  await transactWrite([deliveryCreation(delivery), audit]);
  try {
    await deliveryQueue().send([
      {
        organizationId: delivery.organizationId,
        webhookId: delivery.webhookId,
        createdAt: delivery.createdAt,
        deliveryId: delivery.deliveryId,
      },
    ]);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const attempt = {
      at: Date.now(),
      statusCode: 0,
      latencyMs: 0,
      error: `not queued: ${reason}`,
      responseExcerpt: '',
    };
    await db.send(new UpdateCommand(attemptRecord(delivery, attempt, 'DEAD').Update!)).catch(() => undefined);
    throw error;
  }
}

/**
 * POST /api/v1/org/{orgId}/webhooks/{webhookId}/test (testWebhook): a `ping` delivery to the subscription, disabled
 * or not. Waits for its first attempt (the receiver's answer, a refusal or the timeout), at most
 * WEBHOOK_TIMEOUT_MS + 2 s and 12 s, and answers the delivery as it is then: PENDING when the attempt is still
 * under way (the delivery log shows how it ends).
 */
export async function testWebhook(caller: Caller, orgId: string, webhookId: string, remainingMs: () => number) {
  const webhook = await existingWebhook(orgId, webhookId);
  const now = Date.now();
  const eventId = randomUUID();
  const delivery: DeliveryRecord = {
    deliveryId: randomUUID(),
    webhookId,
    organizationId: orgId,
    eventId,
    event: TEST_EVENT,
    createdAt: now,
    body: testBody(webhook, eventId, now),
    status: 'PENDING',
    attempts: [],
    attemptCount: 0,
    test: true,
  };
  await recordAndQueue(
    delivery,
    auditEntry(
      caller,
      orgId,
      'INTEGRATION_MODIFIED',
      auditPayload(webhook, { action: 'test', deliveryId: delivery.deliveryId }),
      now,
    ),
  );
  const waitMs = Math.min(config.webhookTimeoutMs + 2000, TEST_WAIT_CAP_MS, Math.max(0, remainingMs() - 3000));
  const deadline = Date.now() + waitMs;
  let current = delivery;
  for (;;) {
    current = (await getDelivery(delivery)) ?? current;
    if (current.attemptCount > 0 || current.status !== 'PENDING' || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, TEST_POLL_MS));
  }
  return { delivery: toDelivery(current) };
}

/**
 * POST .../webhooks/{webhookId}/deliveries/{deliveryId}/redeliver (redeliverWebhookDelivery): a new delivery of the
 * same event (same event id and body, a new delivery id) to the same subscription, with its own attempts. Only a
 * delivery that is over (DELIVERED, DEAD, DROPPED) among the ones the log shows; not while the subscription is
 * disabled (unless it is a test).
 */
export async function redeliverWebhookDelivery(caller: Caller, orgId: string, webhookId: string, deliveryId: string) {
  const webhook = await existingWebhook(orgId, webhookId);
  const original = (await deliveriesOfWebhook(webhookId, DELIVERIES_LISTED)).find((d) => d.deliveryId === deliveryId);
  if (!original)
    throw notFound(`delivery ${deliveryId} not found among the ${DELIVERIES_LISTED} newest of webhook ${webhookId}`);
  if (original.status === 'PENDING' || original.status === 'RETRYING')
    throw conflict(
      `delivery ${deliveryId} is ${original.status}: its next attempt is queued already; redeliver it once it is DELIVERED, DEAD or DROPPED`,
    );
  if (!webhook.enabled && !original.test) throw conflict(`webhook ${webhookId} is disabled: enable it, then redeliver`);
  const now = Date.now();
  const delivery: DeliveryRecord = {
    deliveryId: randomUUID(),
    webhookId,
    organizationId: orgId,
    eventId: original.eventId,
    event: original.event,
    createdAt: now,
    body: original.body,
    status: 'PENDING',
    attempts: [],
    attemptCount: 0,
    ...(original.test ? { test: true } : {}),
    redeliveryOf: original.deliveryId,
  };
  await recordAndQueue(
    delivery,
    auditEntry(
      caller,
      orgId,
      'INTEGRATION_MODIFIED',
      auditPayload(webhook, {
        action: 'redeliver',
        deliveryId: delivery.deliveryId,
        redeliveryOf: original.deliveryId,
        eventId: original.eventId,
        event: original.event,
      }),
      now,
    ),
  );
  return { delivery: toDelivery(delivery) };
}
