import { isPausing, slaClock } from '../governance/clock.ts';
import { severityDays, type SlaPolicy } from '../governance/policy.ts';
import type { FindingRecord, TriageRule } from '../findings/repository.ts';
import type { TriageStatus } from '../findings/statuses.ts';
import type { Severity } from '../scans/inputs.ts';

// The figures of the trends (docs/GOVERNANCE.md, Trends) and how each change of findings moves them: pure
// arithmetic from what a write read and what it writes, so that every writer counts alike.

export const DAY = 86_400_000;
export const dayOf = (ms: number) => Math.floor(ms / DAY);

export const TREND_SEVERITIES = ['High', 'Medium', 'Low', 'Info'] as const satisfies readonly Severity[];
/** The two coverage windows, in days: an environment counts on day d when it had a scan published on d-w+1..d. */
export const COVERAGE_WINDOWS = [7, 30] as const;

/**
 * The counters of one (scope, day) item, and of the scope's total (the sum over every day). Per severity: `open*`
 * the net change of open findings, `new*`, `fixed*`, `reopened*` the events; `fixTimeMs` the sum of fixedAt -
 * firstSeen of the fixes; `slaDue`/`slaMet` the fixes with a due date and those on or before it; `start<w>` and
 * `stop<w>` the coverage changes: +1 from this day on, and -1 from w days after this day.
 */
export type TrendField =
  | `${'open' | 'new' | 'fixed' | 'reopened'}${(typeof TREND_SEVERITIES)[number]}`
  | 'fixTimeMs'
  | 'slaDue'
  | 'slaMet'
  | `${'start' | 'stop'}${(typeof COVERAGE_WINDOWS)[number]}`;

export const TREND_FIELDS: TrendField[] = [
  ...(['open', 'new', 'fixed', 'reopened'] as const).flatMap((f) => TREND_SEVERITIES.map((s) => `${f}${s}` as const)),
  'fixTimeMs',
  'slaDue',
  'slaMet',
  ...COVERAGE_WINDOWS.flatMap((w) => [`start${w}` as const, `stop${w}` as const]),
];

export type Figures = Partial<Record<TrendField, number>>;

/** The changes of one write, per UTC day (only days with a non-zero change are written). */
export class TrendChange {
  readonly days = new Map<number, Figures>();
  add(day: number, field: TrendField, delta: number): void {
    if (delta === 0) return;
    const figures = this.days.get(day) ?? {};
    figures[field] = (figures[field] ?? 0) + delta;
    this.days.set(day, figures);
  }
  /** Whether it changes nothing. */
  get empty(): boolean {
    return [...this.days.values()].every((f) => Object.values(f).every((v) => v === 0));
  }
  /** The sum over its days: what the scope's total moves by. */
  total(): Figures {
    const sum: Figures = {};
    for (const figures of this.days.values())
      for (const [field, value] of Object.entries(figures) as [TrendField, number][])
        sum[field] = (sum[field] ?? 0) + value;
    return sum;
  }
  negated(): TrendChange {
    const out = new TrendChange();
    for (const [day, figures] of this.days)
      for (const [field, value] of Object.entries(figures) as [TrendField, number][]) out.add(day, field, -value);
    return out;
  }
}

/** A finding counts as open while current and not set aside (false positive, accepted risk): its SLA clock runs. */
export const isOpenStatus = (status: TriageStatus) => !isPausing(status);
/** Current: seen by the environment's scans and not found gone by its latest completed scan since. */
export const isCurrent = (finding: Pick<FindingRecord, 'fixedAt'>) => finding.fixedAt === undefined;

export const severityOf = (severity: string) =>
  (TREND_SEVERITIES as readonly string[]).includes(severity) ? (severity as (typeof TREND_SEVERITIES)[number]) : 'Info';

/**
 * The coverage change of an environment whose latest published scan was on day `previous` (undefined: none) and is
 * now on `day`: a new window [day, day + w) starts, or the running one is extended to end w days after `day`.
 */
export function coverageScan(change: TrendChange, previous: number | undefined, day: number): void {
  for (const w of COVERAGE_WINDOWS) {
    if (previous === undefined || day >= previous + w) {
      change.add(day, `start${w}`, 1);
      change.add(day, `stop${w}`, 1);
    } else if (day > previous) {
      change.add(previous, `stop${w}`, -1);
      change.add(day, `stop${w}`, 1);
    }
  }
}

/** The coverage change of an environment leaving on `day` (deleted), last scanned on `previous`. */
export function coverageRemoval(change: TrendChange, previous: number | undefined, day: number): void {
  if (previous === undefined) return;
  for (const w of COVERAGE_WINDOWS) {
    if (previous + w <= day) continue; // its window has ended already
    change.add(day, `start${w}`, -1);
    change.add(previous, `stop${w}`, -1);
  }
}

/**
 * What publishing a scan does to the environment's findings (docs/GOVERNANCE.md, Trends): each finding it reports
 * that the environment never had is new; one that was fixed is current again (reopened, if open); and when the scan
 * completed and is the environment's latest (`decidesFixes`), each current finding it does not report is fixed at
 * `now`. `known`: the environment's records as published; `found`: the records the scan writes; `rules` by hash.
 * Returns the figures' change and the fixed findings' records (with `fixedAt`), to write with the others.
 */
export function publicationChange(
  known: Map<string, FindingRecord>,
  found: FindingRecord[],
  rules: Map<string, Pick<TriageRule, 'status' | 'history'>>,
  decidesFixes: boolean,
  now: number,
  policy: Pick<SlaPolicy, 'days'> | undefined,
): { change: TrendChange; fixed: FindingRecord[] } {
  const day = dayOf(now);
  const change = new TrendChange();
  const statusOf = (hash: string) => rules.get(hash)?.status ?? 'UNKNOWN';
  const reported = new Set<string>();
  for (const finding of found) {
    reported.add(finding.findingHash);
    const open = isOpenStatus(statusOf(finding.findingHash));
    const severity = severityOf(finding.severity);
    const was = known.get(finding.findingHash);
    if (!was) {
      change.add(day, `new${severity}`, 1);
      if (open) change.add(day, `open${severity}`, 1);
    } else if (!isCurrent(was)) {
      if (open) {
        change.add(day, `reopened${severity}`, 1);
        change.add(day, `open${severity}`, 1);
      }
    } else if (open && severityOf(was.severity) !== severity) {
      change.add(day, `open${severityOf(was.severity)}`, -1);
      change.add(day, `open${severity}`, 1);
    }
  }
  const fixed: FindingRecord[] = [];
  if (decidesFixes) {
    for (const was of known.values()) {
      if (reported.has(was.findingHash) || !isCurrent(was)) continue;
      fixed.push({ ...was, fixedAt: now });
      const rule = rules.get(was.findingHash);
      if (!isOpenStatus(rule?.status ?? 'UNKNOWN')) continue; // set aside: leaves, but is no remediation
      const severity = severityOf(was.severity);
      change.add(day, `fixed${severity}`, 1);
      change.add(day, `open${severity}`, -1);
      change.add(day, 'fixTimeMs', now - was.firstSeen);
      const clock = slaClock(
        was.firstSeen,
        policy && severityDays(policy.days, was.severity),
        rule?.history ?? [],
        now,
      );
      if (clock.dueAt !== undefined) {
        change.add(day, 'slaDue', 1);
        if (now <= clock.dueAt) change.add(day, 'slaMet', 1);
      }
    }
  }
  return { change, fixed };
}

/**
 * What a triage change of a finding does: while it is current, moving between open and set-aside statuses moves the
 * open figure, and a set-aside finding made open again (a person's triage or an acceptance's expiry) is reopened.
 */
export function triageChange(
  change: TrendChange,
  finding: Pick<FindingRecord, 'severity' | 'fixedAt'>,
  from: TriageStatus,
  to: TriageStatus,
  now: number,
): void {
  if (!isCurrent(finding) || isOpenStatus(from) === isOpenStatus(to)) return;
  const severity = severityOf(finding.severity);
  const day = dayOf(now);
  change.add(day, `open${severity}`, isOpenStatus(to) ? 1 : -1);
  if (isOpenStatus(to)) change.add(day, `reopened${severity}`, 1);
}
