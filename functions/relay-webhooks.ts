import type { Context } from 'aws-lambda';
import { relayOutbox } from '../shared/delivery/relay.ts';
import { sqsSender } from '../shared/delivery/sqs-queue.ts';

// The outbox relay on AWS (docs/WEBHOOKS.md, Delivery), run every minute by an EventBridge schedule: passes over the
// outbox until it is empty or the invocation nears its end (the next run takes the rest).
const queue = sqsSender();
/** Time kept back for the pass in flight to finish. */
const MARGIN_MS = 20_000;

export const handler = async (_event: unknown, context: Context): Promise<{ relayed: number }> => {
  let relayed = 0;
  for (;;) {
    const passed = await relayOutbox(queue);
    relayed += passed;
    if (passed === 0 || context.getRemainingTimeInMillis() < MARGIN_MS) return { relayed };
  }
};
