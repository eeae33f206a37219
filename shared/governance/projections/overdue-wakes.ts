import type { Projected } from '../../db/entity-write.ts';
import { isPausing, type OverdueInputs } from '../model.ts';
import { earliestDue, overdueWakePut, type OverdueWakeRef } from '../overdue.ts';

// The overdue check's entry of an environment (docs/GOVERNANCE.md, Overdue findings; docs/DATA-MODEL.md,
// Projections): a projection of the environment's findings and their triage statuses. A write that starts a
// finding's overdue episode puts the entry, one per environment, at the earliest time any of them can be due; the
// check then reads the environment and keys the entry to its real next due date. An episode starts when a finding is
// reported new, again after a fix, with another severity, or for the first time since episodes were kept (a
// publication), or when a current finding set aside (false positive, accepted risk) is made open again (a triage),
// provided its clock runs (not set aside) for a severity with days (not Info). Setting a finding aside writes
// nothing: the check finds its clock stopped and drops what it no longer needs.

/** The environment the entry points to, and the write's time (an entry is never keyed before it). */
export interface OverdueWakeContext {
  env: OverdueWakeRef;
  now: number;
}

/** The entry's put when the write from `before` to `after` starts an overdue episode (else nothing). */
export function project(
  before: OverdueInputs | undefined,
  after: OverdueInputs | undefined,
  context: OverdueWakeContext,
): Projected {
  let firstSeen: number | undefined;
  for (const [hash, finding] of after?.findings ?? []) {
    if (finding.fixedAt !== undefined || finding.severity === 'Info') continue;
    if (isPausing(after!.statuses.get(hash) ?? 'UNKNOWN')) continue;
    const was = before?.findings.get(hash);
    const starts =
      !was ||
      was.fixedAt !== undefined ||
      was.severity !== finding.severity ||
      // A record from before currentSince was kept has no entry yet: its environment's next scan gives it one.
      (was.currentSince === undefined && finding.currentSince !== undefined) ||
      isPausing(before?.statuses.get(hash) ?? 'UNKNOWN');
    if (starts) firstSeen = Math.min(firstSeen ?? finding.firstSeen, finding.firstSeen);
  }
  if (firstSeen === undefined) return {};
  return { items: [overdueWakePut({ ...context.env, checkAt: earliestDue(firstSeen, context.now) })] };
}
