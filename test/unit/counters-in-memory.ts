import type { TransactItem } from '../../shared/db/transactions.ts';
import { keys } from '../../shared/db/keys.ts';
import { bucketShare, DAY, NO_HEALTH, type ApplicationRecord } from '../../shared/applications/model.ts';

// Counter items in memory, for the projection property tests (test/unit/*-projections.test.ts): what the ADD
// Updates of the writes leave, and what a recomputation from the applications gives.

/** Counter items: numbers by attribute, by item key. */
export type Counters = Map<string, Record<string, number>>;

const keyOf = (key: Record<string, unknown>) => `${key.pk as string}|${key.sk as string}`;

/** Whether `item` is a counter's ADD Update (entity-write.ts counterUpdates). */
export const isCounterUpdate = (item: TransactItem) =>
  !!item.Update?.UpdateExpression?.startsWith('SET entity = :entity ADD ');

/** Applies a counter's ADD Update to `counters`. */
export function applyCounterUpdate(counters: Counters, item: TransactItem): void {
  const update = item.Update!;
  const counter = counters.get(keyOf(update.Key!)) ?? {};
  for (const [alias, name] of Object.entries(update.ExpressionAttributeNames ?? {}))
    counter[name] = (counter[name] ?? 0) + (update.ExpressionAttributeValues![`:${alias.slice(1)}`] as number);
  counters.set(keyOf(update.Key!), counter);
}

/** The counters without their zeros (an item whose numbers are all 0 counts nothing). */
export const nonZero = (counters: Counters): Counters =>
  new Map(
    [...counters]
      .map(([key, counter]) => [key, Object.fromEntries(Object.entries(counter).filter(([, n]) => n !== 0))] as const)
      .filter(([, counter]) => Object.keys(counter).length > 0),
  );

/**
 * The organization's counters and day counters of `apps` summed afresh: per bucket its live applications, their
 * environments and (of those counted in the aggregates) their health figures; per bucket and day of newest scan
 * (within 31 days of `now`), its live counted applications.
 */
export function recomputedCounters(apps: ApplicationRecord[], now: number): Counters {
  const counters: Counters = new Map();
  const add = (key: { pk: string; sk: string }, figures: Record<string, number>) => {
    const counter = counters.get(keyOf(key)) ?? {};
    for (const [name, n] of Object.entries(figures)) counter[name] = (counter[name] ?? 0) + n;
    counters.set(keyOf(key), counter);
  };
  for (const app of apps.filter((a) => !a.deleting)) {
    const counted = app.healthVersion !== undefined;
    const health = { ...NO_HEALTH, ...app.health };
    add(keys.organizationCounter(app.organizationId, app.applicationType, app.teamId), {
      applications: 1,
      environments: app.environmentCount,
      ...(counted ? bucketShare(health, app.environmentCount > 0) : {}),
    });
    const day = Math.floor(health.scannedAt / DAY);
    if (counted && health.scannedAt > 0 && day >= Math.floor(now / DAY) - 31)
      add(keys.healthDayCounter(app.organizationId, day, app.applicationType, app.teamId), { applications: 1 });
  }
  return nonZero(counters);
}
