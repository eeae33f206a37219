import { entityKind } from '../db/entity-write.ts';
import type { OverdueFiredMark } from './overdue.ts';
import * as overdueOutbox from './projections/overdue-outbox.ts';
import * as overdueWakes from './projections/overdue-wakes.ts';

// The governance's entity kinds with their projections (docs/DATA-MODEL.md, Projections; shared/db/entity-write.ts,
// EntityKind). A risk acceptance's expiry entry is a projection of the triage rule: registered with the rule's kind
// (shared/findings/entities.ts).

/** A finding's mark of its last overdue episode: the episode's findingOverdue in the outbox. */
export const overdueFired = entityKind<OverdueFiredMark, overdueOutbox.OverdueContext>('overdueFired', {
  outbox: overdueOutbox.project,
});

/**
 * An environment's findings as the overdue check follows them (their records and triage statuses): not an item of
 * its own, derived into the check's entry for the environment when a write starts an overdue episode.
 */
export const environmentOverdue = entityKind<overdueWakes.OverdueInputs, overdueWakes.OverdueWakeContext>(
  'environmentOverdue',
  { wakes: overdueWakes.project },
);
