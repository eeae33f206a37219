import type { Projected } from '../../db/entity-write.ts';
import { overdueEvent } from '../../webhooks/model.ts';
import { outboxItem } from '../../db/outbox.ts';
import type { OverdueFiredMark } from '../overdue.ts';

// A finding's findingOverdue in the outbox (docs/GOVERNANCE.md, Overdue findings; docs/DATA-MODEL.md, Projections):
// a projection of its fired mark, the episode its last event was for. A mark of a later episode than the one
// before records that episode's event, in the mark's transaction.

/** What the event names beside the mark: the finding, its environment and application, and its clock. */
export type OverdueContext = Parameters<typeof overdueEvent>[0] & {
  /** The finding's triage status when it became overdue. */
  status: string;
  firstSeen: number;
  slaDays: number;
};

/** The outbox item of the mark's change from `before` to `after`: none unless it marks a later episode. */
export function project(
  before: OverdueFiredMark | undefined,
  after: OverdueFiredMark | undefined,
  context: OverdueContext,
): Projected {
  if (!after || (before && before.episode >= after.episode)) return {};
  const { status, firstSeen, slaDays, ...names } = context;
  const event = overdueEvent(
    names,
    { status, firstSeen, dueAt: after.dueAt, slaDays, episode: after.episode },
    after.firedAt,
  );
  return { items: [outboxItem(event)] };
}
