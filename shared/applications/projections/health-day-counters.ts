import { keys } from '../../db/keys.ts';
import { netCounters, type CounterChange, type Projected, type Projection } from '../../db/entity-write.ts';
import { DAY, type ApplicationRecord } from '../model.ts';

// The health day counters (docs/DATA-MODEL.md, Health aggregates and Projections; keys.healthDayCounter): per
// (type, team) bucket and UTC day, how many of its applications were last scanned that day. A projection of the
// application's record: a write moves the application from the day of its newest scan before it to the day after.

export const DAY_COUNTER_ENTITY = 'healthDayCounter';

/** Day counters older than this many days before a write are never read again (reads look 30 days back): not kept. */
const KEPT_DAYS = 31;

export const dayOf = (ms: number) => Math.floor(ms / DAY);

/**
 * The day counter a live, counted application in its state `app` is counted in at `now` (none: never scanned,
 * not counted yet, or too old to be read again). Sign -1: what leaving it takes.
 */
export function dayCount(app: ApplicationRecord | undefined, now: number, sign: 1 | -1 = 1): CounterChange | undefined {
  const scannedAt = app && !app.deleting && app.healthVersion !== undefined ? (app.health?.scannedAt ?? 0) : 0;
  if (scannedAt <= 0 || dayOf(scannedAt) < dayOf(now) - KEPT_DAYS) return undefined;
  return {
    key: keys.healthDayCounter(app!.organizationId, dayOf(scannedAt), app!.applicationType, app!.teamId),
    entity: DAY_COUNTER_ENTITY,
    add: { applications: sign },
  };
}

/** The projection of writes at `now`: the application leaves its day counter before and joins the one after. */
export const project: Projection<ApplicationRecord, { now: number }> = (before, after, { now }): Projected => ({
  counters: netCounters([dayCount(before, now, -1), dayCount(after, now)].filter((c) => c !== undefined)),
});
