import {
  applicationHealthOf,
  environmentHealth,
  NO_HEALTH,
  SUMMED_HEALTH_FIELDS,
  type ApplicationHealth,
  type ApplicationRecord,
  type HealthSource,
} from './model.ts';

// The application's figures as a projection of its environments (docs/DATA-MODEL.md, Projections): its environment
// count and status, and its health (the sums of its live environments' last scans and its newest scan time, with
// the `healthVersion` its writes are conditioned on). A change of environments gives the application's record
// after it; the application's write carries that record's own projections (its list entries, the organization's
// counters, the day counters).

/** An environment's last scan before and after a write (undefined before: created; undefined after: deleted). */
export interface EnvironmentChange {
  environmentId: string;
  before?: HealthSource;
  after?: HealthSource;
}

/**
 * Whether the application's figures after `changes` need its other live environments' last scans: when it is not
 * counted yet (written before the aggregates: counted from all of them), or when an environment that had its newest
 * scan time loses it (the newest of the others decides). Else the changes' figures alone give them.
 */
export function needsOtherEnvironments(app: ApplicationRecord, changes: readonly EnvironmentChange[]): boolean {
  if (app.healthVersion === undefined) return true;
  const newest = app.health?.scannedAt ?? 0;
  return changes.some((c) => {
    const was = environmentHealth(c.before).scannedAt;
    return was > 0 && was === newest && environmentHealth(c.after).scannedAt < was;
  });
}

/**
 * The application's record after `changes` to its environments, from the record as read: its count moves by the
 * environments created and deleted (its status with it), its figures by the changes' (`others`: the last scans of
 * its other live environments, when needsOtherEnvironments), and its health version by one.
 */
export function project(
  app: ApplicationRecord,
  changes: readonly EnvironmentChange[],
  others?: readonly HealthSource[],
): ApplicationRecord {
  const created = changes.filter((c) => !c.before && c.after).length;
  const deleted = changes.filter((c) => c.before && !c.after).length;
  const environmentCount = app.environmentCount + created - deleted;
  const scans = [...(others ?? []), ...changes.flatMap((c) => (c.after ? [c.after] : []))];
  return {
    ...app,
    environmentCount,
    applicationStatus: created === deleted ? app.applicationStatus : environmentCount > 0 ? 'ACTIVE' : 'ENV_INCOMPLETE',
    health: others ? applicationHealthOf(scans) : moved(app, changes),
    healthVersion: (app.healthVersion ?? 0) + 1,
  };
}

/** A counted application's figures moved by the changes' (its newest scan time not lost). */
function moved(app: ApplicationRecord, changes: readonly EnvironmentChange[]): ApplicationHealth {
  const health = { ...NO_HEALTH, ...app.health };
  for (const c of changes) {
    const [was, is] = [environmentHealth(c.before), environmentHealth(c.after)];
    for (const f of SUMMED_HEALTH_FIELDS) health[f] = (health[f] ?? 0) + (is[f] ?? 0) - (was[f] ?? 0);
    health.scannedAt = Math.max(health.scannedAt, is.scannedAt);
  }
  return health;
}
