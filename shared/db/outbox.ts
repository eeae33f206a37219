import { config } from '../config.ts';
import { keys } from './keys.ts';
import type { TransactItem } from './transactions.ts';

// The outbox (docs/WEBHOOKS.md, Events): an event committed in the same transaction as the change it describes, and
// delivered afterwards (shared/delivery/relay.ts). Apart from the events' model (webhooks/model.ts) so that the
// models stay free of the table's configuration.

/** How long an event not handed to the queue stays in the outbox before DynamoDB's TTL removes it. */
const OUTBOX_TTL_SECONDS = 7 * 24 * 3600;

/** The outbox item of an event (a webhook event or a tracker job), to commit with the change it describes. */
export function outboxItem<E extends { eventId: string; occurredAt: number }>(event: E): TransactItem {
  return {
    Put: {
      TableName: config.tableName,
      Item: {
        ...keys.outboxEvent(event.eventId, event.occurredAt),
        entity: 'outbox',
        ...event,
        expiresAt: Math.floor(event.occurredAt / 1000) + OUTBOX_TTL_SECONDS,
      },
    },
  };
}
