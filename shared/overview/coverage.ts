import { batchGet, queryAll, type PartitionQuery } from '../db/query.ts';
import { keys } from '../db/keys.ts';
import { DAY, type ListEntry, type ListScope, HOUR } from '../applications/model.ts';
import {
  environmentEntries,
  environmentEntriesQuery,
  environmentEntriesScannedBetween,
  environmentEntriesScannedBetweenQuery,
} from '../applications/list-entries.ts';
import { COVERAGE_LISTED, type CoverageFacts } from './model.ts';

// The overview's coverage gaps (docs/GOVERNANCE.md, The overview): the environments not scanned within 7 days, counted
// and the oldest listed, either from a walk of the scan-date index (the recomputation, and the source for a member
// whose team rules hide applications) or from the coverage counters (projections/environment-coverage.ts).

const lastScan = (e: ListEntry) => e.lastScanTimestamp ?? 0;

/** The figures of a walk's entries (every environment not scanned within 7 days the walk kept). */
export function coverageOfWalk(stale: { kept: ListEntry[]; exhausted: boolean }, now: number): CoverageFacts {
  return {
    complete: stale.exhausted,
    neverScanned: stale.kept.filter((e) => !lastScan(e)).length,
    notScannedIn7Days: stale.kept.length,
    notScannedIn30Days: stale.kept.filter((e) => lastScan(e) <= now - 30 * DAY).length,
    listed: stale.kept.slice(0, COVERAGE_LISTED),
  };
}

const sum = (items: Record<string, unknown>[]) => items.reduce((n, item) => n + Number(item.environments ?? 0), 0);
const FAR = 10 ** 14;
/** The scan-date index's first call of oldestScans: the listed ones and a few that team rules may leave out. */
const OLDEST_PAGE = COVERAGE_LISTED + 5;

/** The rest of the hour after `t`: its next millisecond to the hour's last. */
const restOfHour = (t: number): [number, number] => [t + 1, (Math.floor(t / HOUR) + 1) * HOUR - 1];

/**
 * What coverageOfCounters reads as of `now`: the request's prefetch (overview.ts overviewReads) issues them as of the
 * moment the request then answers for, so they are the request's own.
 */
export function coverageReads(orgId: string, now: number) {
  const [t7, t30] = [now - 7 * DAY, now - 30 * DAY];
  const days = keys.coverageCounters(orgId, 'DAY', Math.floor(t30 / DAY) + 1, FAR);
  // The hours of the bound's day after its hour (none in its day's last hour).
  const restOfDay = (t: number): PartitionQuery | undefined => {
    const [from, to] = [Math.floor(t / HOUR) + 1, (Math.floor(t / DAY) + 1) * 24 - 1];
    if (from > to) return undefined;
    const range = keys.coverageCounters(orgId, 'HOUR', from, to);
    return { partition: range.pk, skFrom: range.skFrom, skTo: range.skTo };
  };
  return {
    bounds: { t7, t30 },
    marks: [keys.coverageReady(orgId), keys.coverageScanned(orgId)],
    days: { partition: days.pk, skFrom: days.skFrom, skTo: days.skTo, attributes: ['sk', 'environments'] },
    hours: { t7: restOfDay(t7), t30: restOfDay(t30) },
    /** The environments scanned in the bound's hour: the bound's own hour is counted from them. */
    scansOfHour: {
      t7: environmentEntriesScannedBetweenQuery(orgId, ...restOfHour(t7)),
      t30: environmentEntriesScannedBetweenQuery(orgId, ...restOfHour(t30)),
    },
    oldest: environmentEntriesQuery(orgId, 'scanDate', true, OLDEST_PAGE),
  };
}

/**
 * The figures from the counters, for a scope that sees the whole organization (undefined otherwise, or while the
 * organization's counters are not complete: data from before them until npm run migrate counts it). Exact: the live
 * environments (the organization counters, in `scope`) less those whose last scan started after each bound: whole
 * days after the bound's day, then whole hours of its day after its hour, then that hour's environments from the
 * scan-date index. A few small reads whatever the organization's size, all of them in the request's prefetch.
 */
export async function coverageOfCounters(orgId: string, scope: ListScope, now: number) {
  if (!scope.whole) return undefined;
  const reads = coverageReads(orgId, now);
  const { t7, t30 } = reads.bounds;
  const hoursOfDay = async (query: PartitionQuery | undefined) => (query ? sum(await queryAll(query)) : 0);
  const ofHour = async (t: number) => {
    const entries = await environmentEntriesScannedBetween(orgId, ...restOfHour(t), { prefetchedFirstCall: true });
    return entries.filter((e) => scope.keep(e) && lastScan(e) > t).length;
  };
  const [marks, dayItems, hours7, hours30, hour7, hour30, listed] = await Promise.all([
    batchGet(reads.marks),
    queryAll(reads.days),
    hoursOfDay(reads.hours.t7),
    hoursOfDay(reads.hours.t30),
    ofHour(t7),
    ofHour(t30),
    oldestScans(orgId, scope, t7),
  ]);
  if (!marks.some((item) => item.sk === keys.coverageReady(orgId).sk)) return undefined;
  const scanned = sum(marks.filter((item) => item.sk === keys.coverageScanned(orgId).sk));
  const after = (t: number) =>
    sum(dayItems.filter((item) => (item.sk as string) > keys.coverageCounter(orgId, 'DAY', Math.floor(t / DAY)).sk));
  const total = scope.counts.environments;
  return {
    complete: true,
    neverScanned: total - scanned,
    notScannedIn7Days: total - (after(t7) + hours7 + hour7),
    notScannedIn30Days: total - (after(t30) + hours30 + hour30),
    listed,
  } satisfies CoverageFacts;
}

/** The first COVERAGE_LISTED environments `scope` keeps of the scan-date index (never scanned, then oldest) up to `t`. */
async function oldestScans(orgId: string, scope: ListScope, t: number) {
  const listed: ListEntry[] = [];
  const walk = environmentEntries(orgId, 'scanDate', true, OLDEST_PAGE, undefined, { prefetchedFirstCall: true });
  for await (const entry of walk) {
    if (lastScan(entry) > t || listed.length === COVERAGE_LISTED) break;
    if (scope.keep(entry)) listed.push(entry);
  }
  await walk.return(undefined);
  return listed;
}
