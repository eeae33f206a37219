import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { getItem, queryItems } from '../db/query.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';
import { type DeliveryStatus, type DeliveryAttempt, type DeliveryRecord, type DeliveryRef } from './model.ts';

// The delivery log (docs/WEBHOOKS.md, Delivery log): one record per event and subscription, in the subscription's
// own partition, newest last, holding the body as signed and sent and the attempts made. Kept 30 days (TTL).

const DELIVERY_TTL_SECONDS = 30 * 24 * 3600;
/** Attempts kept on a record (the newest). */
const ATTEMPT_LOG_LENGTH = 20;

export const deliveryKey = (ref: DeliveryRef) => keys.webhookDelivery(ref.webhookId, ref.createdAt, ref.deliveryId);

export async function getDelivery(ref: DeliveryRef): Promise<DeliveryRecord | undefined> {
  return fromItem<DeliveryRecord>(await getItem(deliveryKey(ref)));
}

/** A new delivery record; an existing one (the same event relayed again) is kept as it is. */
export const deliveryCreation = (delivery: DeliveryRecord) => ({
  Put: {
    TableName: config.tableName,
    Item: {
      ...deliveryKey(delivery),
      entity: 'webhookDelivery',
      ...delivery,
      expiresAt: Math.floor(delivery.createdAt / 1000) + DELIVERY_TTL_SECONDS,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** Records an attempt and the status it leads to, unless the delivery was delivered meanwhile. */
export function attemptRecord(
  delivery: DeliveryRecord,
  attempt: DeliveryAttempt,
  status: DeliveryStatus,
): TransactItem {
  const attempts = [...delivery.attempts, attempt].slice(-ATTEMPT_LOG_LENGTH);
  return {
    Update: {
      TableName: config.tableName,
      Key: deliveryKey(delivery),
      UpdateExpression:
        'SET attempts = :attempts, attemptCount = attemptCount + :one, #status = :status' +
        (status === 'DELIVERED' ? ', deliveredAt = :at' : ''),
      ConditionExpression: 'attribute_exists(pk) AND #status <> :delivered',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':attempts': attempts,
        ':one': 1,
        ':status': status,
        ':delivered': 'DELIVERED',
        ...(status === 'DELIVERED' ? { ':at': attempt.at } : {}),
      },
    },
  };
}

/** Sets a delivery's status (DROPPED: its subscription is gone or disabled). */
export async function setDeliveryStatus(ref: DeliveryRef, status: DeliveryStatus): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: deliveryKey(ref),
      UpdateExpression: 'SET #status = :status',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': status },
    }),
  );
}

/** A subscription's deliveries, newest first, at most `limit`. */
export async function deliveriesOfWebhook(webhookId: string, limit: number): Promise<DeliveryRecord[]> {
  const out: DeliveryRecord[] = [];
  for await (const item of queryItems({
    partition: keys.deliveriesOfWebhook(webhookId).pk,
    forward: false,
    pageLimit: limit,
  })) {
    out.push(fromItem<DeliveryRecord>(item)!);
    if (out.length >= limit) break;
  }
  return out;
}
