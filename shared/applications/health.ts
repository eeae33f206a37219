import { keys } from '../db/keys.ts';
import { getItem, queryAll } from '../db/query.ts';
import { fromItem } from '../db/items.ts';
import { config } from '../config.ts';
import { setAndRemove, type TransactItem } from '../db/transactions.ts';
import {
  addBucketHealth,
  applicationHealthOf,
  bucketShare,
  DAY,
  environmentHealth,
  NO_HEALTH,
  type ApplicationHealth,
  type ApplicationRecord,
  type ApplicationType,
  type BucketHealth,
  type EnvironmentRecord,
  type LastScan,
} from './model.ts';

// Health aggregates (docs/DATA-MODEL.md, Health aggregates): List Environments V2's includeAppHealthStats over a
// caller's whole scope without reading its environments. Each application keeps the sums of its live environments'
// last scans and its newest scan time (`health`, on its item, with `healthVersion`); each (type, team) bucket keeps
// the sums of its applications (on the organization counter) and, per UTC day, how many of them were last scanned
// that day. Every write that changes an environment's last-scan fields or its existence, or an application's
// existence or owner, changes them in its own transaction, conditioned on the application's `healthVersion`, so they
// stay exact under concurrent writes.

/** Day counters older than this many days before a write are never read again (reads look 30 days back): not kept. */
const KEPT_DAYS = 31;

const dayOf = (ms: number) => Math.floor(ms / DAY);

/**
 * The day counter changes of moving an application last scanned at `from` in bucket `fromBucket` to `to` in
 * `toBucket` (0: not scanned, or not counted), net per counter; days older than KEPT_DAYS before `now` are skipped.
 */
export function dayCounterChanges(
  orgId: string,
  moves: {
    applicationType: ApplicationType;
    from?: { teamId: string | undefined; scannedAt: number };
    to?: { teamId: string | undefined; scannedAt: number };
  }[],
  now: number,
): TransactItem[] {
  const oldest = dayOf(now) - KEPT_DAYS;
  const deltas = new Map<string, { key: Record<string, string>; delta: number }>();
  const add = (
    type: ApplicationType,
    side: { teamId: string | undefined; scannedAt: number } | undefined,
    delta: number,
  ) => {
    if (!side || side.scannedAt <= 0 || dayOf(side.scannedAt) < oldest) return;
    const key = keys.healthDayCounter(orgId, dayOf(side.scannedAt), type, side.teamId);
    const entry = deltas.get(key.sk) ?? { key, delta: 0 };
    entry.delta += delta;
    deltas.set(key.sk, entry);
  };
  for (const move of moves) {
    add(move.applicationType, move.from, -1);
    add(move.applicationType, move.to, 1);
  }
  return [...deltas.values()]
    .filter(({ delta }) => delta !== 0)
    .map(({ key, delta }) => ({
      Update: {
        TableName: config.tableName,
        Key: key,
        UpdateExpression: 'SET entity = :entity ADD applications :delta',
        ExpressionAttributeValues: { ':entity': 'healthDayCounter', ':delta': delta },
      },
    }));
}

/** An environment's last scan before and after a write (undefined before: created; undefined after: deleted). */
export interface EnvironmentChange {
  environmentId: string;
  before?: Partial<LastScan>;
  after?: Partial<LastScan>;
}

/** The application item's part of a health change: merged into the write that updates the application. */
export interface ApplicationHealthUpdate {
  set: Record<string, unknown>;
  remove: string[];
  /** The application is live, has the owner and environment count read, and its health is still the one read. */
  condition: string;
  values: Record<string, unknown>;
  /** The change of the application's bucket (its type and owner read). */
  bucket: BucketHealth;
  /** Day counter writes (separate items). */
  days: TransactItem[];
}

/** The condition that the application's health (or its absence: not yet counted) is still the one read. */
export function healthUnchanged(app: ApplicationRecord): { condition: string; values: Record<string, unknown> } {
  return app.healthVersion === undefined
    ? { condition: 'attribute_not_exists(healthVersion)', values: {} }
    : { condition: 'healthVersion = :healthVersion', values: { ':healthVersion': app.healthVersion } };
}

/** The application's live environments as stored now (strongly consistent: decided on together with healthVersion). */
async function currentEnvironments(appId: string): Promise<EnvironmentRecord[]> {
  const { pk, skPrefix } = keys.environmentsOfApp(appId);
  const items = await queryAll({ partition: pk, skPrefix, consistent: true });
  return items.map((item) => fromItem<EnvironmentRecord>(item)!).filter((env) => !env.deleting);
}

/**
 * The health change of `changes` to the application's environments (with `environmentCount` after them), given the
 * application as read: its figures move by the changes; its newest scan time is read again from its environments
 * only when the environment that had it loses it. An application not counted yet (written before the aggregates
 * existed) is counted now, from all its environments. The write is conditioned on the application's health version
 * and each environment's write on the last-scan fields read, so the deltas are exact.
 */
export async function applicationHealthUpdate(
  app: ApplicationRecord,
  changes: EnvironmentChange[],
  environmentCount: number,
  now = Date.now(),
): Promise<ApplicationHealthUpdate> {
  const counted = app.healthVersion !== undefined;
  const before = counted ? { ...NO_HEALTH, ...app.health } : NO_HEALTH;
  let after: ApplicationHealth;
  const losesNewest = changes.some((c) => {
    const was = environmentHealth(c.before).scannedAt;
    return was > 0 && was === before.scannedAt && environmentHealth(c.after).scannedAt < was;
  });
  if (counted && !losesNewest) {
    after = { ...before };
    for (const c of changes) {
      const [was, is] = [environmentHealth(c.before), environmentHealth(c.after)];
      for (const f of ['high', 'medium', 'low', 'total', 'failed'] as const) after[f] += is[f] - was[f];
      after.scannedAt = Math.max(after.scannedAt, is.scannedAt);
    }
  } else {
    const changed = new Map(changes.map((c) => [c.environmentId, c]));
    const envs: Partial<LastScan>[] = (await currentEnvironments(app.applicationId)).filter(
      (env) => !changed.has(env.environmentId),
    );
    for (const c of changes) if (c.after) envs.push(c.after);
    after = applicationHealthOf(envs);
  }
  const unchanged = healthUnchanged(app);
  const team = app.teamId
    ? { condition: 'teamId = :healthTeam', values: { ':healthTeam': app.teamId } }
    : { condition: 'attribute_not_exists(teamId)', values: {} };
  const index =
    after.scannedAt > 0
      ? keys.applicationByScanTime(app.organizationId, app.applicationId, after.scannedAt)
      : undefined;
  const bucket = addBucketHealth(
    bucketShare(after, environmentCount > 0),
    counted ? bucketShare(before, app.environmentCount > 0, -1) : undefined,
  )!;
  return {
    set: { health: after, healthVersion: (app.healthVersion ?? 0) + 1, ...index },
    remove: index ? [] : ['gsi5pk', 'gsi5sk'],
    condition: `attribute_exists(pk) AND attribute_not_exists(deleting) AND environmentCount = :healthCount AND ${team.condition} AND ${unchanged.condition}`,
    values: { ':healthCount': app.environmentCount, ...team.values, ...unchanged.values },
    bucket,
    days: dayCounterChanges(
      app.organizationId,
      [
        {
          applicationType: app.applicationType,
          from: counted ? { teamId: app.teamId, scannedAt: before.scannedAt } : undefined,
          to: { teamId: app.teamId, scannedAt: after.scannedAt },
        },
      ],
      now,
    ),
  };
}

/** A health change as parts of an application Update (SET clauses, attributes to remove, condition, names, values). */
export function healthUpdateParts(update: ApplicationHealthUpdate) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ...update.values };
  const set = Object.entries(update.set).map(([name, value], i) => {
    names[`#h${i}`] = name;
    values[`:h${i}`] = value;
    return `#h${i} = :h${i}`;
  });
  return { set, remove: update.remove, condition: update.condition, names, values };
}

/** The application's Update of a health change alone (writes that change no other field of the application). */
export function applicationHealthWrite(app: ApplicationRecord, update: ApplicationHealthUpdate): TransactItem {
  const parts = healthUpdateParts(update);
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.application(app.applicationId),
      UpdateExpression: setAndRemove(parts.set, parts.remove),
      ConditionExpression: parts.condition,
      ExpressionAttributeNames: parts.names,
      ExpressionAttributeValues: parts.values,
    },
  };
}

/** The application as stored, for a health change (its version decides; a stale read only costs a retry). */
export async function applicationForHealth(appId: string): Promise<ApplicationRecord | undefined> {
  const app = fromItem<ApplicationRecord>(await getItem(keys.application(appId)));
  return app && !app.deleting ? app : undefined;
}

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
