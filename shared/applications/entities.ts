import { entityKind, projectionOf } from '../db/entity-write.ts';
import type { ApplicationRecord, EnvironmentRecord } from './model.ts';
import * as applicationListEntries from './projections/application-list-entries.ts';
import * as applicationNameIndex from './projections/application-name-index.ts';
import * as organizationCounters from './projections/organization-counters.ts';
import * as healthDayCounters from './projections/health-day-counters.ts';
import * as environmentListEntries from './projections/environment-list-entries.ts';
import * as environmentNameClaim from './projections/environment-name-claim.ts';
import * as environmentNameIndex from './projections/environment-name-index.ts';
import * as environmentCoverage from './projections/environment-coverage.ts';
import * as teamApplicationLists from './projections/team-application-lists.ts';
import * as riskiestApplications from './projections/riskiest-applications.ts';

// The entity kinds of applications and environments with their projections (docs/DATA-MODEL.md, Projections;
// shared/db/entity-write.ts, EntityKind): a write names its kind, and every projection registered here is applied.

/** What an application's projections read beside its record: the time of the write (its day counters). */
export interface ApplicationWriteContext {
  now: number;
  /**
   * A bulk load's item (applicationPuts): the organization's and day counters are written once for all of them
   * (organizationCounterChange), not by each application's write.
   */
  uncounted?: true;
}

/**
 * The overview's ranked entry of an application (not an item of its own: derived from the application's record), a
 * kind apart so that the upgrade's step (results/riskiest.ts) can write it alone.
 */
export const riskiestEntry = entityKind<ApplicationRecord>('riskiestEntry', {
  riskiest: riskiestApplications.project,
});

/**
 * An application: its list entries, its name index, the organization's counters, the health day counters and the
 * overview's riskiest entry.
 */
export const application = entityKind<ApplicationRecord, ApplicationWriteContext>('application', {
  listEntries: applicationListEntries.project,
  nameIndex: applicationNameIndex.project,
  organizationCounters: (before, after, { uncounted }) =>
    uncounted ? {} : organizationCounters.project(before, after),
  healthDayCounters: (before, after, context) =>
    context.uncounted ? {} : healthDayCounters.project(before, after, context),
  riskiest: (before, after) => projectionOf(riskiestEntry, before, after, undefined),
});

/**
 * An environment: its list entries, its name claim, its name index and the overview's coverage counters. Its
 * application's count and health figures are the application's write beside it (applicationEnvironmentsChange).
 */
export const environment = entityKind<EnvironmentRecord>('environment', {
  listEntries: environmentListEntries.project,
  nameClaim: environmentNameClaim.project,
  nameIndex: environmentNameIndex.project,
  coverage: environmentCoverage.project,
});

/**
 * The owners of an organization's applications (by application id), as the teams list them: not an item of its own
 * (each application's `teamId`), derived into each team's `applicationIds`.
 */
export const applicationOwners = entityKind<teamApplicationLists.Owners, teamApplicationLists.TeamListsContext>(
  'applicationOwners',
  { teamLists: teamApplicationLists.project },
);
