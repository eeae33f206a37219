import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { queryAll } from '../db/query.ts';
import { isConditionFailure } from '../db/items.ts';
import { config } from '../config.ts';
import { deliveryAttempts } from './queue.ts';
import { type FairShare, type DeliveryQueue, type QueueMessage, type QueueRecord } from './model.ts';

// `npm start`'s delivery queue, kept in the table (partition QUEUE#main, dead letters in QUEUE#dead): SQS's
// semantics on one machine. A receive claims a visible message with a conditional write (so two consumers never
// hold it at once), hides it for the visibility timeout and counts the receive; a message received more than
// maxReceiveCount times moves to the dead-letter partition instead, as SQS's redrive policy does. A receive given
// the consumer's share (FairShare) takes work organization by organization, as SQS's fair queues do on AWS
// (shared/delivery/sqs-queue.ts): one organization's backlog never holds back another's delivery.

const MAIN = 'main';
const DEAD = 'dead';
/** How long a received message stays hidden while it is being handled (longer than a delivery can take). */
const VISIBILITY_MS = 60_000;

interface StoredMessage {
  messageId: string;
  body: string;
  visibleAt: number;
  receiveCount: number;
  sentAt: number;
}

export const organizationOf = (body: string) => (JSON.parse(body) as QueueMessage).organizationId;

/**
 * Up to `max` of the visible messages (oldest first), organization by organization: each next message goes to the
 * organization with the fewest in flight (the longest waiting first among equals), never past its share, so a new
 * organization's delivery is taken before the backlog of one that already holds slots.
 */
function fairlyPicked(visible: StoredMessage[], max: number, share: FairShare): StoredMessage[] {
  const waiting = new Map<string, StoredMessage[]>();
  for (const message of visible) {
    const organizationId = organizationOf(message.body);
    const messages = waiting.get(organizationId);
    if (messages) messages.push(message);
    else waiting.set(organizationId, [message]);
  }
  const held = new Map(share.inFlight);
  const picked: StoredMessage[] = [];
  while (picked.length < max) {
    let next: { organizationId: string; count: number; first: StoredMessage } | undefined;
    for (const [organizationId, messages] of waiting) {
      const count = held.get(organizationId) ?? 0;
      if (!messages.length || count >= share.perOrganization) continue;
      if (!next || count < next.count || (count === next.count && messages[0].visibleAt < next.first.visibleAt))
        next = { organizationId, count, first: messages[0] };
    }
    if (!next) break;
    picked.push(waiting.get(next.organizationId)!.shift()!);
    held.set(next.organizationId, next.count + 1);
  }
  return picked;
}

const receipt = (messageId: string, receiveCount: number) => `${messageId}:${receiveCount}`;
const fromReceipt = (handle: string) => {
  const at = handle.lastIndexOf(':');
  return { messageId: handle.slice(0, at), receiveCount: Number(handle.slice(at + 1)) };
};

export function tableQueue(maxReceiveCount = deliveryAttempts()): DeliveryQueue & {
  receive(max: number, share?: FairShare): Promise<QueueRecord[]>;
  remove(receiptHandle: string): Promise<void>;
  deadLetters(): Promise<StoredMessage[]>;
} {
  const put = (queue: string, message: StoredMessage, condition?: string) =>
    db.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.queueMessage(queue, message.messageId), entity: 'queueMessage', ...message },
        ...(condition ? { ConditionExpression: condition } : {}),
      }),
    );
  return {
    async send(messages: QueueMessage[]) {
      const now = Date.now();
      // One message per delivery at a time: the delivery's id is the message's, so queuing it again while it waits
      // (a relay run twice) adds nothing.
      for (const message of messages)
        try {
          await put(
            MAIN,
            {
              messageId: message.deliveryId,
              body: JSON.stringify(message),
              visibleAt: now,
              receiveCount: 0,
              sentAt: now,
            },
            'attribute_not_exists(pk)',
          );
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
        }
    },

    async receive(max: number, share?: FairShare): Promise<QueueRecord[]> {
      const now = Date.now();
      const visible = (await queryAll({ partition: keys.queueMessages(MAIN).pk, consistent: true }))
        .map((item) => item as unknown as StoredMessage)
        .filter((m) => m.visibleAt <= now)
        .sort((a, b) => a.visibleAt - b.visibleAt);
      const received: QueueRecord[] = [];
      for (const message of share ? fairlyPicked(visible, max, share) : visible.slice(0, max)) {
        if (message.receiveCount >= maxReceiveCount) {
          // Redrive: received too often without being deleted.
          await put(DEAD, message);
          await db.send(
            new DeleteCommand({ TableName: config.tableName, Key: keys.queueMessage(MAIN, message.messageId) }),
          );
          continue;
        }
        try {
          await db.send(
            new UpdateCommand({
              TableName: config.tableName,
              Key: keys.queueMessage(MAIN, message.messageId),
              UpdateExpression: 'SET visibleAt = :hidden, receiveCount = :count',
              ConditionExpression: 'receiveCount = :seen',
              ExpressionAttributeValues: {
                ':hidden': now + VISIBILITY_MS,
                ':count': message.receiveCount + 1,
                ':seen': message.receiveCount,
              },
            }),
          );
        } catch (error) {
          if (isConditionFailure(error)) continue; // another consumer took it
          throw error;
        }
        received.push({
          messageId: message.messageId,
          receiptHandle: receipt(message.messageId, message.receiveCount + 1),
          body: message.body,
          attributes: { ApproximateReceiveCount: String(message.receiveCount + 1) },
        });
      }
      return received;
    },

    async retryLater(receiptHandle: string, delayMs: number) {
      const { messageId, receiveCount } = fromReceipt(receiptHandle);
      try {
        await db.send(
          new UpdateCommand({
            TableName: config.tableName,
            Key: keys.queueMessage(MAIN, messageId),
            UpdateExpression: 'SET visibleAt = :at',
            ConditionExpression: 'receiveCount = :count',
            ExpressionAttributeValues: { ':at': Date.now() + delayMs, ':count': receiveCount },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error; // received again meanwhile: that receive decides
      }
    },

    async remove(receiptHandle: string) {
      const { messageId, receiveCount } = fromReceipt(receiptHandle);
      try {
        await db.send(
          new DeleteCommand({
            TableName: config.tableName,
            Key: keys.queueMessage(MAIN, messageId),
            ConditionExpression: 'receiveCount = :count',
            ExpressionAttributeValues: { ':count': receiveCount },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },

    async deadLetters() {
      return (await queryAll({ partition: keys.queueMessages(DEAD).pk, consistent: true })).map(
        (item) => item as unknown as StoredMessage,
      );
    },
  };
}
