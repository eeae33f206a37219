import { relayOutbox } from '../../shared/webhooks/relay.ts';
import { consumeDeliveries } from '../../shared/webhooks/consumer.ts';
import { tableQueue } from '../../shared/webhooks/table-queue.ts';
import type { QueueRecord } from '../../shared/webhooks/queue.ts';

// `npm start`'s webhook delivery (docs/WEBHOOKS.md, Delivery): the engine SQS is on AWS, kept in the table. One loop
// relays the outbox into the in-table queue, receives what is visible and hands each message to the same consumer
// the AWS function runs; the queue deletes what is done, and redrives to its dead letters what ran out of attempts.
// Up to IN_FLIGHT messages are handled at once, each on its own (as Lambda runs batches side by side): a receiver
// that hangs holds one slot until WEBHOOK_TIMEOUT_MS, never the deliveries behind it.

/** How often the loop looks for work when the last pass found none. */
const IDLE_MS = 200;
/** Messages handled at once. */
const IN_FLIGHT = 10;

const logError = (error: unknown) =>
  console.error(JSON.stringify({ level: 'ERROR', message: 'local webhook delivery', error: String(error) }));

export function startLocalDelivery(): { stop(): Promise<void> } {
  const queue = tableQueue();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const handle = (record: QueueRecord) => {
    const work = consumeDeliveries([record], queue)
      .then(async ({ done }) => {
        if (done.length) await queue.remove(record.receiptHandle);
      })
      .catch(logError)
      .finally(() => inFlight.delete(work));
    inFlight.add(work);
  };
  const loop = (async () => {
    while (!stopped) {
      let busy = false;
      try {
        busy = (await relayOutbox(queue)) > 0;
        const room = IN_FLIGHT - inFlight.size;
        if (room > 0) {
          const received = await queue.receive(room);
          received.forEach(handle);
          busy ||= received.length > 0;
        }
      } catch (error) {
        if (!stopped) logError(error);
      }
      if (!busy && !stopped) await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await Promise.all(inFlight);
    },
  };
}
