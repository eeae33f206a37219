import type { EntityChange } from '../db/entity-write.ts';
import { keys } from '../db/keys.ts';
import type { ApplicationRecord } from './model.ts';

// How an application's own write is described to the write path (shared/db/entity-write.ts, EntityChange): its key,
// its name in the transaction and the condition on what it was decided from. Used by its repository
// (application-repository.ts) and by the kinds that write applications as a projection (entities.ts teamApplications).

/** The change of an application from `before` to `after`, named `name`; `condition` on what was read. */
export const applicationChange = (
  before: ApplicationRecord | undefined,
  after: ApplicationRecord,
  condition?: EntityChange<ApplicationRecord>['condition'],
  name = 'applicationChanged',
): EntityChange<ApplicationRecord> => ({
  key: keys.application(after.applicationId),
  before,
  after,
  name,
  condition,
});

/**
 * The condition of writes that change what an application counts in the organization's counters: it is live and
 * still has the owner, environment count and health (version) read, so the counters change by exactly what was
 * counted.
 */
export function unchangedSinceRead(app: ApplicationRecord): EntityChange<ApplicationRecord>['condition'] {
  const live = 'attribute_not_exists(deleting) AND environmentCount = :read';
  const team = app.teamId
    ? { condition: 'teamId = :oldTeam', values: { ':oldTeam': app.teamId } }
    : { condition: 'attribute_not_exists(teamId)', values: {} };
  const health =
    app.healthVersion === undefined
      ? { condition: 'attribute_not_exists(healthVersion)', values: {} }
      : { condition: 'healthVersion = :healthVersion', values: { ':healthVersion': app.healthVersion } };
  return {
    expression: `${live} AND ${team.condition} AND ${health.condition}`,
    values: { ':read': app.environmentCount, ...team.values, ...health.values },
  };
}
