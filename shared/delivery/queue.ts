import { config } from '../config.ts';
import { PEER_ATTEMPTS } from '../db/retry.ts';

// The delivery queue's contract (docs/WEBHOOKS.md, Delivery). On AWS it is SQS with a dead-letter queue
// (shared/delivery/sqs-queue.ts); locally, `npm start`'s in-table equivalent (shared/delivery/table-queue.ts) with
// the same semantics: a received message stays hidden for a visibility timeout, counts its receives, and moves to
// the dead-letter queue once received more than the attempts allowed. The consumer is the same code for both.

/** Receives of a message before it is dead: WEBHOOK_MAX_ATTEMPTS, else the retry policy's (shared/db/retry.ts). */
export const deliveryAttempts = () => config.webhookMaxAttempts ?? PEER_ATTEMPTS;

/**
 * The delay before the attempt after the `receiveCount`th: doubling from WEBHOOK_RETRY_BASE_MS, at most 15 minutes,
 * and never shorter than the receiver's Retry-After (already bounded by the sender).
 */
export const retryDelayMs = (receiveCount: number, baseMs: number, retryAfterMs = 0) =>
  Math.max(Math.min(baseMs * 2 ** Math.max(0, receiveCount - 1), 15 * 60 * 1000), retryAfterMs);
