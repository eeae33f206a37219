import { relayOutbox } from '../../shared/delivery/relay.ts';
import { consumeDeliveries } from '../../shared/delivery/consumer.ts';
import { organizationOf, tableQueue } from '../../shared/delivery/table-queue.ts';
import type { QueueRecord } from '../../shared/delivery/model.ts';

// `npm start`'s webhook delivery (docs/WEBHOOKS.md, Delivery): the engines of AWS (an EventBridge-scheduled relay,
// SQS feeding a consumer function) as two loops in the process. The relay loop hands the outbox's events to the
// in-table queue; the consumer loop receives what is visible and hands each message to the same consumer the AWS
// function runs; the queue deletes what is done, and redrives to its dead letters what ran out of attempts. The two
// loops run side by side, as on AWS, so a long relay pass never holds back deliveries already queued. Up to
// IN_FLIGHT messages are handled at once, each on its own (as Lambda runs batches side by side): a receiver that
// hangs holds one slot until WEBHOOK_TIMEOUT_MS, never the deliveries behind it. Each organization gets its share
// (docs/WEBHOOKS.md, Delivery): at most PER_ORGANIZATION slots, so that slots are always left for the others, and
// a freed slot goes to the organization holding the fewest (shared/delivery/table-queue.ts, FairShare).

/** How often a loop looks for work when its last pass found none. */
const IDLE_MS = 200;
/** Messages handled at once. */
const IN_FLIGHT = 12;
/** Messages of one organization handled at once: an organization alone keeps ten slots. */
const PER_ORGANIZATION = 10;

const logError = (error: unknown) =>
  console.error(JSON.stringify({ level: 'ERROR', message: 'local webhook delivery', error: String(error) }));

export function startLocalDelivery(): { stop(): Promise<void> } {
  const queue = tableQueue();
  const inFlight = new Set<Promise<void>>();
  const inFlightByOrganization = new Map<string, number>();
  let stopped = false;
  const idle = () => new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  /** Runs `pass` until stopped, pausing when it found nothing to do. */
  const loop = async (pass: () => Promise<boolean>) => {
    while (!stopped) {
      let busy = false;
      try {
        busy = await pass();
      } catch (error) {
        if (!stopped) logError(error);
      }
      if (!busy && !stopped) await idle();
    }
  };
  const handle = (record: QueueRecord) => {
    const organizationId = organizationOf(record.body);
    inFlightByOrganization.set(organizationId, (inFlightByOrganization.get(organizationId) ?? 0) + 1);
    const work = consumeDeliveries([record], queue)
      .then(async ({ done }) => {
        if (done.length) await queue.remove(record.receiptHandle);
      })
      .catch(logError)
      .finally(() => {
        inFlight.delete(work);
        const left = inFlightByOrganization.get(organizationId)! - 1;
        if (left) inFlightByOrganization.set(organizationId, left);
        else inFlightByOrganization.delete(organizationId);
      });
    inFlight.add(work);
  };
  const loops = Promise.all([
    loop(async () => (await relayOutbox(queue)) > 0),
    loop(async () => {
      const room = IN_FLIGHT - inFlight.size;
      if (room <= 0) {
        await Promise.race(inFlight); // a slot frees up
        return true;
      }
      const received = await queue.receive(room, {
        inFlight: inFlightByOrganization,
        perOrganization: PER_ORGANIZATION,
      });
      received.forEach(handle);
      return received.length > 0;
    }),
  ]);
  return {
    async stop() {
      stopped = true;
      await loops;
      await Promise.all(inFlight);
    },
  };
}
