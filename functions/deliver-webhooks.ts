import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { consumeDeliveries } from '../shared/delivery/consumer.ts';
import { sqsRetrier } from '../shared/delivery/sqs-queue.ts';

// The webhook delivery consumer on AWS (docs/WEBHOOKS.md, Delivery), fed by the delivery queue's event source with
// partial batch responses: the messages whose work is over are deleted, the others stay for their backoff (or the
// redrive into the dead-letter queue).
const queue = sqsRetrier();

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const { failed } = await consumeDeliveries(event.Records, queue);
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
};
