import { config } from '../../config.ts';
import type { Projected } from '../../db/entity-write.ts';
import { keys } from '../../db/keys.ts';
import { named } from '../../db/items.ts';
import type { TransactItem } from '../../db/transactions.ts';
import type { PerchRun } from '../model.ts';

// A run's slot in its organization's limit of running hosted scans (docs/HOSTED-SCANS.md; docs/DATA-MODEL.md,
// Projections): a projection of the run. A run holds a slot from the write that takes it (an agent's
// acknowledgement, `holdsSlot`) to the one that ends it or gives it back (its application's delete); runChange's
// condition makes each of those writes happen once.

/** Whether the run counts against the organization's running scans. */
const holds = (run: Pick<PerchRun, 'state' | 'holdsSlot'> | undefined) => run?.state === 'RUNNING' && !!run.holdsSlot;

/** The slot's take or its release for the run's change from `before` to `after` (none when it keeps its slot). */
export function project(before: PerchRun | undefined, after: PerchRun | undefined): Projected {
  const run = after ?? before;
  if (!run || holds(before) === holds(after)) return {};
  return { items: [holds(after) ? slotTake(run.organizationId) : slotRelease(run.organizationId)] };
}

/**
 * Takes one of the organization's slots: the transaction fails (ConditionalCheckFailed, at `slotsFull`) once as many
 * runs run as the organization's limit allows.
 */
const slotTake = (orgId: string): TransactItem =>
  named('slotsFull', {
    Update: {
      TableName: config.tableName,
      Key: keys.perchSlots(orgId),
      UpdateExpression: 'SET #running = if_not_exists(#running, :zero) + :one, entity = :entity',
      ConditionExpression:
        'attribute_not_exists(#running) OR #running < #limit OR (attribute_not_exists(#limit) AND #running < :limit)',
      ExpressionAttributeNames: { '#running': 'running', '#limit': 'limit' },
      ExpressionAttributeValues: {
        ':zero': 0,
        ':one': 1,
        ':limit': config.perchMaxRunningScans,
        ':entity': 'perchSlots',
      },
    },
  });

/**
 * Gives the slot back. Unconditional: the run's own write is conditioned on the run as read. A free slot may let a
 * queued run start: the queue's version moves (repository.ts queueVersion).
 */
const slotRelease = (orgId: string): TransactItem => ({
  Update: {
    TableName: config.tableName,
    Key: keys.perchSlots(orgId),
    UpdateExpression: 'SET #running = if_not_exists(#running, :one) - :one ADD queueVersion :one',
    ExpressionAttributeNames: { '#running': 'running' },
    ExpressionAttributeValues: { ':one': 1 },
  },
});
