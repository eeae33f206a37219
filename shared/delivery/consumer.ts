import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { isConditionFailure } from '../db/items.ts';
import { config } from '../config.ts';
import { unseal } from '../secrets/sealing.ts';
import { attemptRecord, getDelivery, setDeliveryStatus } from '../webhooks/deliveries.ts';
import { type DeliveryStatus, webhookSealContext } from '../webhooks/model.ts';
import { getWebhook } from '../webhooks/repository.ts';
import { getIntegrationSettings } from '../outbound/settings.ts';
import { send } from '../webhooks/sender.ts';
import { deliveryAttempts, retryDelayMs } from './queue.ts';
import { consumeTrackerMessage } from './tracker-jobs.ts';
import { type ConsumeResult, type DeliveryRetrier, type QueueMessage, type QueueRecord } from './model.ts';

// The delivery consumer (docs/WEBHOOKS.md, Delivery): the same code behind SQS on AWS (functions/deliver-webhooks.ts)
// and the in-table queue of `npm start`. Each message is one delivery: sent signed, its attempt recorded in the
// delivery log. A failed attempt stays on the queue, hidden for the backoff; the attempt that reaches
// WEBHOOK_MAX_ATTEMPTS marks the delivery DEAD and leaves the message to the queue's redrive into the dead-letter
// queue. A receiver that is refused (a private address the organization does not allow) is not retried.

async function consumeOne(record: QueueRecord, queue: DeliveryRetrier): Promise<'done' | 'failed'> {
  const queued = JSON.parse(record.body) as QueueMessage;
  // Tracker jobs share the queue, its retries and dead letters (docs/TRACKERS.md, Delivery).
  if ('kind' in queued) return consumeTrackerMessage(record, queued, queue);
  const message = queued;
  const delivery = await getDelivery(message);
  if (!delivery || delivery.status === 'DELIVERED' || delivery.status === 'DROPPED') return 'done';
  const webhook = await getWebhook(message.organizationId, message.webhookId);
  // A test delivery (testWebhook) goes out even while the subscription is disabled: trying a receiver before
  // turning it on is what a test is for.
  if (!webhook || (!webhook.enabled && !delivery.test)) {
    await setDeliveryStatus(message, 'DROPPED');
    return 'done';
  }
  const settings = await getIntegrationSettings(webhook.organizationId);
  const attempt = await send({
    url: await unseal(webhook.sealedUrl, webhookSealContext(webhook, 'url')),
    body: delivery.body,
    event: delivery.event,
    eventId: delivery.eventId,
    deliveryId: delivery.deliveryId,
    secret: await unseal(webhook.sealedSecret, webhookSealContext(webhook, 'secret')),
    customHeader: webhook.customHeader && {
      name: webhook.customHeader.name,
      value: await unseal(webhook.customHeader.sealedValue, webhookSealContext(webhook, 'header')),
    },
    allowPrivateNetworks: settings.allowPrivateNetworks,
  });
  const receives = Number(record.attributes.ApproximateReceiveCount) || 1;
  const delivered = attempt.error === undefined;
  const refused = attempt.error?.startsWith('refused:') ?? false;
  const status: DeliveryStatus = delivered
    ? 'DELIVERED'
    : refused || receives >= deliveryAttempts()
      ? 'DEAD'
      : 'RETRYING';
  try {
    await db.send(new UpdateCommand(attemptRecord(delivery, attempt, status).Update!));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return 'done'; // delivered by another receive meanwhile
  }
  if (status === 'DELIVERED' || refused) return 'done';
  // Out of attempts: visible again at once, so the queue's redrive moves it to the dead letters on its next receive.
  // A receiver that asked for a wait (429 or 503 with Retry-After) gets at least that wait.
  await queue.retryLater(
    record.receiptHandle,
    status === 'RETRYING' ? retryDelayMs(receives, config.webhookRetryBaseMs, attempt.retryAfterMs) : 0,
  );
  return 'failed';
}

/** Handles a batch of queue messages, each on its own: one receiver's failure never holds back another's. */
export async function consumeDeliveries(records: QueueRecord[], queue: DeliveryRetrier): Promise<ConsumeResult> {
  const result: ConsumeResult = { done: [], failed: [] };
  await Promise.all(
    records.map(async (record) => {
      try {
        result[await consumeOne(record, queue)].push(record.messageId);
      } catch (error) {
        console.error(JSON.stringify({ level: 'ERROR', message: 'webhook delivery failed', error: String(error) }));
        result.failed.push(record.messageId);
      }
    }),
  );
  return result;
}
