import type { RuleHistoryEntry } from '../results/model.ts';
import type { TriageStatus } from '../results/statuses.ts';

// The SLA clock of a finding (docs/GOVERNANCE.md, Due dates): pure arithmetic over the finding's first sighting, its
// severity's days and its triage history, so that the report, the CLI gate and the tests compute it alike.

export const DAY_MS = 86_400_000;

/** Statuses that stop the clock: the finding is judged not to need fixing (for now). */
export const isPausing = (status: TriageStatus) => status === 'FALSE_POSITIVE' || status === 'RISK_ACCEPTED';

export interface SlaClock {
  /** ms when the finding is due; undefined while the clock is stopped (or for a severity without an SLA). */
  dueAt?: number;
  /** Whole days until the due date (negative: overdue by that many started days); 0 without a due date. */
  daysLeft: number;
  overdue: boolean;
}

/**
 * The clock of a finding first seen at `firstSeen` (ms) with `days` to fix it (undefined: no SLA for its
 * severity), as of `at` (ms): it runs from the first sighting and stands still while the finding is a false
 * positive or an accepted risk; when it is reopened it goes on from where it stopped (the stopped time is added to
 * the due date). Only history entries up to `at` count. `history` is oldest first (a rule's, at most 200 entries:
 * the status before the oldest kept entry is taken to have held since the first sighting).
 */
export function slaClock(
  firstSeen: number,
  days: number | undefined,
  history: Pick<RuleHistoryEntry, 'oldResult' | 'newResult' | 'timestamp'>[],
  at: number,
): SlaClock {
  if (days === undefined) return { daysLeft: 0, overdue: false };
  let status: TriageStatus = history[0]?.oldResult ?? 'UNKNOWN';
  let since = firstSeen;
  let stopped = 0;
  for (const entry of history) {
    if (entry.timestamp > at) break;
    const t = Math.max(entry.timestamp, firstSeen);
    if (isPausing(status)) stopped += t - since;
    since = t;
    status = entry.newResult;
  }
  if (isPausing(status)) return { daysLeft: 0, overdue: false };
  const dueAt = firstSeen + days * DAY_MS + stopped;
  return { dueAt, daysLeft: Math.floor((dueAt - at) / DAY_MS), overdue: at > dueAt };
}
