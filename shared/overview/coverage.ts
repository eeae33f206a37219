import { batchGet, queryAll } from '../db/query.ts';
import { keys } from '../db/keys.ts';
import { DAY, type ListEntry, type ListScope, HOUR } from '../applications/model.ts';
import { environmentEntries, environmentEntriesScannedBetween } from '../applications/list-entries.ts';
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

/**
 * The figures from the counters, for a scope that sees the whole organization (undefined otherwise, or while the
 * organization's counters are not complete: data from before them until npm run migrate counts it). Exact: the live
 * environments (the organization counters, in `scope`) less those whose last scan started after each bound: whole
 * days after the bound's day, then whole hours of its day after its hour, then that hour's environments from the
 * scan-date index. A few small reads whatever the organization's size.
 */
export async function coverageOfCounters(orgId: string, scope: ListScope, now: number) {
  if (!scope.whole) return undefined;
  const [t7, t30] = [now - 7 * DAY, now - 30 * DAY];
  const hoursOfDay = async (t: number) => {
    const [from, to] = [Math.floor(t / HOUR) + 1, (Math.floor(t / DAY) + 1) * 24 - 1];
    if (from > to) return 0;
    const range = keys.coverageCounters(orgId, 'HOUR', from, to);
    return sum(await queryAll({ partition: range.pk, skFrom: range.skFrom, skTo: range.skTo }));
  };
  const ofHour = async (t: number) => {
    const entries = await environmentEntriesScannedBetween(orgId, t + 1, (Math.floor(t / HOUR) + 1) * HOUR - 1);
    return entries.filter((e) => scope.keep(e) && lastScan(e) > t).length;
  };
  const days = keys.coverageCounters(orgId, 'DAY', Math.floor(t30 / DAY) + 1, FAR);
  const [marks, dayItems, hours7, hours30, hour7, hour30, listed] = await Promise.all([
    batchGet([keys.coverageReady(orgId), keys.coverageScanned(orgId)]),
    queryAll({ partition: days.pk, skFrom: days.skFrom, skTo: days.skTo, attributes: ['sk', 'environments'] }),
    hoursOfDay(t7),
    hoursOfDay(t30),
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
  const walk = environmentEntries(orgId, 'scanDate', true, COVERAGE_LISTED + 5);
  for await (const entry of walk) {
    if (lastScan(entry) > t || listed.length === COVERAGE_LISTED) break;
    if (scope.keep(entry)) listed.push(entry);
  }
  await walk.return(undefined);
  return listed;
}
