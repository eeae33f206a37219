import { relayOutbox } from '../../shared/webhooks/relay.ts';
import { consumeDeliveries } from '../../shared/webhooks/consumer.ts';
import { tableQueue } from '../../shared/webhooks/table-queue.ts';

// `npm start`'s webhook delivery (docs/WEBHOOKS.md, Delivery): the engine SQS is on AWS, kept in the table. One loop
// relays the outbox into the in-table queue, receives what is visible and hands it to the same consumer the AWS
// function runs; the queue deletes what is done, and redrives to its dead letters what ran out of attempts.

/** How often the loop looks for work when the last pass found none. */
const IDLE_MS = 200;
/** Messages handled at once. */
const BATCH = 10;

export function startLocalDelivery(): { stop(): Promise<void> } {
  const queue = tableQueue();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      let busy = false;
      try {
        busy = (await relayOutbox(queue)) > 0;
        const received = await queue.receive(BATCH);
        if (received.length) {
          busy = true;
          const { done } = await consumeDeliveries(received, queue);
          const handles = new Map(received.map((r) => [r.messageId, r.receiptHandle]));
          for (const id of done) await queue.remove(handles.get(id)!);
        }
      } catch (error) {
        if (!stopped)
          console.error(JSON.stringify({ level: 'ERROR', message: 'local webhook delivery', error: String(error) }));
      }
      if (!busy && !stopped) await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
