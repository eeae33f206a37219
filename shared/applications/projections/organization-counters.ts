import { keys } from '../../db/keys.ts';
import { netCounters, type CounterChange, type Projected } from '../../db/entity-write.ts';
import { bucketShare, NO_HEALTH, type ApplicationRecord } from '../model.ts';

// The organization's counters (docs/DATA-MODEL.md, Projections; keys.organizationCounter): per (type, team) bucket,
// its live applications, their environments and, for the health statistics, the sums of their health figures
// (model.ts bucketShare). A projection of the application's record: a write adds to the buckets the difference
// between what the application counts in them after it and before it (an owner change moves it between two).

export const COUNTER_ENTITY = 'organizationCounter';

/**
 * What an application in its state `app` counts in its bucket: itself and its environments while live, and its
 * health share once counted in the aggregates (`healthVersion`: not yet for one written before they existed).
 * The health figures that are 0 are left out (sign -1: what leaving the bucket takes).
 */
export function share(app: ApplicationRecord | undefined, sign: 1 | -1 = 1): CounterChange | undefined {
  if (!app || app.deleting) return undefined;
  const health =
    app.healthVersion === undefined
      ? {}
      : Object.fromEntries(
          Object.entries(bucketShare({ ...NO_HEALTH, ...app.health }, app.environmentCount > 0, sign)).filter(
            ([, n]) => n !== 0,
          ),
        );
  return {
    key: keys.organizationCounter(app.organizationId, app.applicationType, app.teamId),
    entity: COUNTER_ENTITY,
    add: { applications: sign, environments: sign * app.environmentCount, ...health },
  };
}

/** The change of the buckets' counters from `before` to `after`: none when what the application counts stays. */
export const project = (before: ApplicationRecord | undefined, after: ApplicationRecord | undefined): Projected => ({
  counters: netCounters([share(before, -1), share(after)].filter((c) => c !== undefined)),
});
