import type { DeliveryRef } from '../webhooks/model.ts';
import type { TrackerMessage } from '../trackers/model.ts';

// The model of what carries events out (docs/WEBHOOKS.md, Delivery; docs/TRACKERS.md, Delivery): the queue's messages
// and contract, the consumer's answer, the tracker jobs' actor and limits. Records, types and pure rules only
// (docs/LAYOUT.md, Layers): it imports the kernel and other resources' model.ts, never a repository.

/** What a queue message carries: the delivery it is about. */
export interface DeliveryMessage extends DeliveryRef {
  organizationId: string;
}

/** A message of the queue: a webhook delivery, or a tracker job (docs/TRACKERS.md), each with its own id. */
export type QueueMessage = DeliveryMessage | TrackerMessage;

/** A received message, as SQS hands it to a Lambda function (the fields the consumer reads). */
export interface QueueRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: { ApproximateReceiveCount: string };
}

/** What the relay needs of the queue. */
export interface DeliverySender {
  send(messages: QueueMessage[]): Promise<void>;
}

/** What the consumer needs of the queue. */
export interface DeliveryRetrier {
  /** Keeps a received message hidden for `delayMs` more (the retry's backoff), after which it is received again. */
  retryLater(receiptHandle: string, delayMs: number): Promise<void>;
}

export type DeliveryQueue = DeliverySender & DeliveryRetrier;

export interface ConsumeResult {
  /** Messages whose work is over (delivered, dead by refusal, dropped): the queue deletes them. */
  done: string[];
  /** Messages to receive again (after their backoff), or to redrive once out of attempts. */
  failed: string[];
}

/** What the consumer holds now, and how much of it one organization may hold (docs/WEBHOOKS.md, Delivery). */
export interface FairShare {
  /** Messages in flight, by organization. */
  inFlight: ReadonlyMap<string, number>;
  /** The most one organization may have in flight. */
  perOrganization: number;
}

/** Who the audit log names for what a tracker's answer changed. */
export const TRACKER_ACTOR = {
  userId: '00000000-0000-0000-0000-000000000000',
  name: 'hawk-api (issue tracker)',
};

/** New findings one completed scan promotes at most (the rest stay untriaged; docs/TRACKERS.md, Scans). */
export const MAX_AUTO_PROMOTIONS = 100;

/** The event type of a test delivery. */
export const TEST_EVENT = 'ping';
