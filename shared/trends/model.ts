import { isPausing } from '../governance/model.ts';
import type { FindingRecord, TriageRule, TriageStatus } from '../results/model.ts';
import type { Severity } from '../input/severities.ts';

// Trends' model (docs/GOVERNANCE.md, Trends). Records, types and pure rules only (docs/LAYOUT.md, Layers): it imports
// the kernel and other resources' model.ts, never a repository.

// The figures of the trends (docs/GOVERNANCE.md, Trends): their fields, a write's change of them per day, what
// counts as open, and coverage's arithmetic; the projections (projections/) move them by each change of findings.

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

/** A scope's running total: every figure summed over all days, `seq` (writes), and for an environment its state. */
export interface TrendTotal extends Figures {
  seq?: number;
  /** Environment: advanced by each publication and by the delete. */
  version?: number;
  /** Environment: the UTC day of its latest published scan (coverage). */
  scannedDay?: number;
  /** Set by the environment's or application's delete: nothing more may be added. */
  deleted?: boolean;
}

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
 * What the trends count of an environment that a write of some of its findings starts from: its total read before
 * them (`read`); for an environment never counted yet (older data), its findings and rules too, read whole (its
 * first count takes in its open findings). environmentTrendsOf gives the write's trends from it.
 */
export interface TrendsRead {
  read: TrendTotal;
  findings: ReadonlyMap<string, FindingRecord>;
  rules: ReadonlyMap<string, Pick<TriageRule, 'status' | 'history'>>;
}
