import { keys } from '../db/keys.ts';
import { queryAll } from '../db/query.ts';
import { DAY, type ApplicationType, type BucketHealth } from './model.ts';
import { dayOf } from './projections/health-day-counters.ts';

// Health aggregates (docs/DATA-MODEL.md, Health aggregates): List Environments V2's includeAppHealthStats over a
// caller's whole scope without reading its environments. Each application keeps the sums of its live environments'
// last scans and its newest scan time (`health`, on its item, with `healthVersion`); each (type, team) bucket keeps
// the sums of its applications (on the organization counter) and, per UTC day, how many of them were last scanned
// that day. Every write that changes an environment's last-scan fields or its existence, or an application's
// existence or owner, changes them in its own transaction (their projections: application-figures.ts,
// organization-counters.ts, health-day-counters.ts), conditioned on the application's `healthVersion`, so they stay
// exact under concurrent writes.

// ---- Reading: the statistics of a caller's scope (its buckets), independent of the organization's size.

/** includeAppHealthStats' figures (application_view.ApplicationFindingsHealthStats, ...ScanFrequencyHealthStats). */
export interface HealthStats {
  findingsHealth: { high: number; medium: number; low: number; total: number };
  scanFrequencyHealth: {
    totalApps: number;
    appsScannedWithinSevenDays: number;
    appsScannedWithinThirtyDays: number;
    appsScannedBeyondThirtyDays: number;
    appsNeverScanned: number;
    failedScansCount: number;
  };
}

type ScopeBucket = { applicationType: ApplicationType; teamId: string | undefined; health: BucketHealth };
const bucketKey = (type: string, teamId: string | undefined) => `${type}#${teamId ?? '-'}`;

/**
 * The health statistics of the applications of `buckets` at `now`, from the aggregates: the buckets' sums (read with
 * the buckets), one Query of the day counters of the last 30 days (and the readiness marker), and for each of the
 * two boundaries (7 and 30 days ago) the applications last scanned on the boundary's day from it on (gsi5): a cost
 * independent of the organization's size. Undefined when the organization's aggregates are not complete yet
 * (data of an earlier version before `npm run migrate`): the caller reads the environments instead.
 */
export async function scopeHealthStats(
  orgId: string,
  buckets: ScopeBucket[],
  now: number,
): Promise<HealthStats | undefined> {
  const inScope = new Set(buckets.map((b) => bucketKey(b.applicationType, b.teamId)));
  const [from7, from30] = [now - 7 * DAY, now - 30 * DAY];
  const days = keys.healthDaysFrom(orgId, dayOf(from30));
  const boundary = async (from: number) => {
    const { gsi5pk, gsi5skFrom, gsi5skTo } = keys.applicationsScannedBetween(orgId, from, (dayOf(from) + 1) * DAY - 1);
    const items = await queryAll({
      index: 'gsi5',
      partition: gsi5pk,
      skFrom: gsi5skFrom,
      skTo: gsi5skTo,
      attributes: ['applicationType', 'teamId'],
    });
    return items.filter((item) =>
      inScope.has(bucketKey(item.applicationType as string, item.teamId as string | undefined)),
    ).length;
  };
  const [dayItems, on7, on30] = await Promise.all([
    queryAll({ partition: days.pk, skFrom: days.skFrom, skTo: days.skTo }),
    boundary(from7),
    boundary(from30),
  ]);
  const ready = keys.healthReady(orgId).sk;
  if (!dayItems.some((item) => item.sk === ready)) return undefined;
  // Applications last scanned on a day after `from`'s (whole days), plus those of its day from `from` on.
  const after = (from: number) =>
    dayItems.reduce((n, item) => {
      const [, day, type, team] = String(item.sk).split('#');
      if (item.sk === ready || Number(day) <= dayOf(from) || !inScope.has(`${type}#${team}`)) return n;
      return n + Number(item.applications ?? 0);
    }, 0);
  const sum = (field: keyof BucketHealth) => buckets.reduce((n, b) => n + b.health[field], 0);
  const [within7, within30, scanned, active] = [
    after(from7) + on7,
    after(from30) + on30,
    sum('scannedApplications'),
    sum('activeApplications'),
  ];
  return {
    findingsHealth: {
      high: sum('untriagedHigh'),
      medium: sum('untriagedMedium'),
      low: sum('untriagedLow'),
      total: sum('untriagedTotal'),
    },
    scanFrequencyHealth: {
      totalApps: active,
      appsScannedWithinSevenDays: within7,
      appsScannedWithinThirtyDays: within30,
      appsScannedBeyondThirtyDays: scanned - within30,
      appsNeverScanned: active - scanned,
      failedScansCount: sum('failedScans'),
    },
  };
}
