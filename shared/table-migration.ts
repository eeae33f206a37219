import type { BackfillOptions, IndexKeysOf, Outcome } from './db/backfill.ts';
import { countApplicationHealth, markHealthComplete } from './applications/health-backfill.ts';
import { applicationIndexKeys } from './applications/application-repository.ts';
import { environmentIndexKeys } from './applications/environment-repository.ts';
import { assignEnvironmentStreams, markStreamsAssigned } from './scans/stream-backfill.ts';

/**
 * The entities whose index keys the backfill (shared/db/backfill.ts: `npm run migrate`, `npm start` on older data)
 * keeps current, by their `entity` attribute: each with the key function its write path puts new items with, so
 * that a new or changed key reaches older items by changing only that function. An entity whose keys change for
 * the first time joins here with its write path's function.
 */
export const indexedEntities: Record<string, IndexKeysOf> = {
  application: applicationIndexKeys as IndexKeysOf,
  environment: environmentIndexKeys as IndexKeysOf,
};

/**
 * What the backfill does besides keys, by entity: applications written before the health aggregates are counted in
 * them (shared/applications/health-backfill.ts); once all are, the organizations are marked complete (`finish`).
 * Environments written before tool streams get theirs (shared/scans/stream-backfill.ts).
 */
export const migrationSteps: Record<string, (item: Record<string, unknown>) => Promise<Outcome>> = {
  application: (item) => countApplicationHealth(item.applicationId as string),
  environment: (item) =>
    item.deleting
      ? Promise.resolve('current')
      : assignEnvironmentStreams(item.applicationId as string, item.environmentId as string),
};

/** The whole migration of a table (npm run migrate, npm start on older data): the keys, the steps, the marker at the end. */
export const tableMigration = (
  tableName: string,
): Pick<BackfillOptions, 'tableName' | 'entities' | 'steps' | 'finish'> => ({
  tableName,
  entities: indexedEntities,
  steps: migrationSteps,
  finish: async () => {
    await markHealthComplete(tableName);
    await markStreamsAssigned(tableName);
  },
});
