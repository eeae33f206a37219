import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config.ts';
import type { DeliveryRetrier, DeliverySender, QueueMessage } from './model.ts';

// The delivery queue on AWS (docs/WEBHOOKS.md, Delivery): an SQS standard queue whose redrive policy moves a message
// to the dead-letter queue once it has been received WEBHOOK_MAX_ATTEMPTS times (infra/stack.ts). A message may
// arrive twice (a relay run again, SQS's own at-least-once): the consumer skips a delivery already made. Each message
// carries its organization as its message group, which makes the standard queue a fair queue
// (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues.html): an
// organization whose deliveries pile up or hang (a large share of the messages in flight or of the consumer's time)
// has its messages served after the other organizations', so its backlog does not delay theirs. Ordering is
// unchanged (a standard queue keeps none), and nothing else is needed of the queue or the event source.

/** SendMessageBatch takes at most 10 messages. */
const SEND_BATCH = 10;
/** SQS's longest visibility timeout: 12 hours. */
const MAX_VISIBILITY_SECONDS = 12 * 60 * 60;

function queueUrlOrThrow(): string {
  if (!config.webhookQueueUrl) throw new Error('WEBHOOK_QUEUE_URL is not set: no delivery queue');
  return config.webhookQueueUrl;
}

/** The relay's side: sending (each function is granted only the SQS actions its own side calls). */
export function sqsSender(): DeliverySender {
  const queueUrl = queueUrlOrThrow();
  const sqs = new SQSClient({ region: config.region });
  return {
    async send(messages: QueueMessage[]) {
      for (let from = 0; from < messages.length; from += SEND_BATCH) {
        const batch = messages.slice(from, from + SEND_BATCH);
        const out = await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((message, i) => ({
              Id: String(i),
              MessageBody: JSON.stringify(message),
              MessageGroupId: message.organizationId,
            })),
          }),
        );
        // The outbox keeps the event until every delivery is queued: a failed entry makes the relay run again.
        if (out.Failed?.length)
          throw new Error(
            `SQS refused ${out.Failed.length} of ${batch.length} deliveries: ${out.Failed.map((f) => f.Code).join(', ')}`,
          );
      }
    },
  };
}

/** The consumer's side: a retry's backoff as the message's visibility. */
export function sqsRetrier(): DeliveryRetrier {
  const queueUrl = queueUrlOrThrow();
  const sqs = new SQSClient({ region: config.region });
  return {
    async retryLater(receiptHandle: string, delayMs: number) {
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: Math.min(MAX_VISIBILITY_SECONDS, Math.ceil(delayMs / 1000)),
        }),
      );
    },
  };
}
