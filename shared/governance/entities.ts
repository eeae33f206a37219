import { entityKind } from '../db/entity-write.ts';
import type { OverdueFiredMark } from './overdue.ts';
import type { OverdueInputs, RiskExpiryContext, RuleExpiry } from './model.ts';
import * as overdueOutbox from './projections/overdue-outbox.ts';
import * as overdueWakes from './projections/overdue-wakes.ts';
import * as riskExpiryEntries from './projections/risk-expiry-entries.ts';

// The governance's entity kinds with their projections (docs/DATA-MODEL.md, Projections; shared/db/entity-write.ts,
// EntityKind). A risk acceptance's expiry entry is a projection of the acceptance (riskAcceptance below), which the
// triage rule's kind derives through (shared/findings/entities.ts).

/** A finding's mark of its last overdue episode: the episode's findingOverdue in the outbox. */
export const overdueFired = entityKind<OverdueFiredMark, overdueOutbox.OverdueContext>('overdueFired', {
  outbox: overdueOutbox.project,
});

/**
 * An environment's findings as the overdue check follows them (their records and triage statuses): not an item of
 * its own, derived into the check's entry for the environment when a write starts an overdue episode.
 */
export const environmentOverdue = entityKind<OverdueInputs, overdueWakes.OverdueWakeContext>('environmentOverdue', {
  wakes: overdueWakes.project,
});

/**
 * A finding's risk acceptance (its rule's status and expiry): not an item of its own, derived into its entry in the
 * index by expiry time. A rule's write derives through it (findings/entities.ts triageRule); so does the expiry
 * check, for an entry whose acceptance no longer stands (findings/risk-expiry.ts): from the acceptance the entry
 * records to none, which deletes the entry.
 */
export const riskAcceptance = entityKind<RuleExpiry, RiskExpiryContext>('riskAcceptance', {
  entries: riskExpiryEntries.project,
});
