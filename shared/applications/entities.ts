import { entityKind, entityWrites, projectionOf } from '../db/entity-write.ts';
import { applicationChange, unchangedSinceRead } from './application-change.ts';
import type { ApplicationRecord, EnvironmentRecord, TeamRecord } from './model.ts';
import * as applicationListEntries from './projections/application-list-entries.ts';
import * as applicationNameIndex from './projections/application-name-index.ts';
import * as organizationCounters from './projections/organization-counters.ts';
import * as healthDayCounters from './projections/health-day-counters.ts';
import * as environmentListEntries from './projections/environment-list-entries.ts';
import * as environmentNameClaim from './projections/environment-name-claim.ts';
import * as environmentNameIndex from './projections/environment-name-index.ts';
import * as environmentCoverage from './projections/environment-coverage.ts';
import * as teamApplicationLists from './projections/team-application-lists.ts';
import * as teamMemberships from './projections/team-memberships.ts';
import * as riskiestApplications from './projections/riskiest-applications.ts';
import * as overviewNames from './projections/overview-names.ts';

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
 * An application: its list entries, its name index, the organization's counters, the health day counters, the
 * overview's riskiest entry and the version of the overview's names.
 */
export const application = entityKind<ApplicationRecord, ApplicationWriteContext>('application', {
  listEntries: applicationListEntries.project,
  nameIndex: applicationNameIndex.project,
  organizationCounters: (before, after, { uncounted }) =>
    uncounted ? {} : organizationCounters.project(before, after),
  healthDayCounters: (before, after, context) =>
    context.uncounted ? {} : healthDayCounters.project(before, after, context),
  riskiest: (before, after) => projectionOf(riskiestEntry, before, after, undefined),
  overviewNames: overviewNames.project,
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

/**
 * A team's members as their memberships copy them (`teamIds`; docs/DATA-MODEL.md, Teams): not an item of its own
 * (the team item's `userIds`), derived into each member's membership. A team's write (shared/teams/) reads and checks
 * the memberships, and names this kind.
 */
export const teamMembers = entityKind<teamMemberships.TeamMembers, teamMemberships.TeamMembersContext>('teamMembers', {
  memberships: teamMemberships.project,
});

/** A team's applications (the team item's `applicationIds`). */
export type TeamApplications = Pick<TeamRecord, 'organizationId' | 'teamId' | 'applicationIds'>;

/** What a team's applications' projections read beside them (the team's write reads and checks them first). */
export interface TeamApplicationsContext {
  /** The organization's applications the team lists before or after the write, as read, by id. */
  applications: ReadonlyMap<string, ApplicationRecord>;
  /** The other teams those applications belong to, as read, by id (their lists lose them). */
  owners: ReadonlyMap<string, Pick<TeamRecord, 'version'>>;
  /** The time of the write (the applications' day counters). */
  now: number;
}

/**
 * The owners of the applications a team's write moves, as read and after it: every application the team lists after
 * it (the team's), then those it no longer lists that were still its own (none). An application not read is left out.
 */
function ownersMoved(
  before: TeamApplications | undefined,
  after: TeamApplications | undefined,
  { applications }: TeamApplicationsContext,
) {
  const team = after ?? before;
  const listed = after?.applicationIds ?? [];
  const dropped = (before?.applicationIds ?? []).filter(
    (id) => !listed.includes(id) && applications.get(id)?.teamId === team?.teamId,
  );
  const moves = [
    ...listed.map((id) => ({ app: applications.get(id), teamId: team?.teamId })),
    ...dropped.map((id) => ({ app: applications.get(id), teamId: undefined })),
  ].flatMap(({ app, teamId }) => (app ? [{ app, teamId }] : []));
  return {
    team,
    moves,
    read: new Map(moves.map(({ app }) => [app.applicationId, app.teamId])),
    after: new Map(moves.map(({ app, teamId }) => [app.applicationId, teamId])),
  };
}

/**
 * A team's applications as their owners copy them (docs/DATA-MODEL.md, Teams): not an item of its own (the team
 * item's `applicationIds`), derived into each moved application's `teamId` (the application's own write, with its
 * projections: its list entries and the organization's counters move with the owner; conditioned on what was read)
 * and, through the applications' owners (applicationOwners), the lists of the other teams they are taken from.
 */
export const teamApplications = entityKind<TeamApplications, TeamApplicationsContext>('teamApplications', {
  ownership: (before, after, context) => {
    const writes = ownersMoved(before, after, context)
      .moves.filter(({ app, teamId }) => app.teamId !== teamId)
      .map(({ app, teamId }) => ({
        change: applicationChange(app, { ...app, teamId }, unchangedSinceRead(app)),
        context: { now: context.now },
      }));
    return { items: entityWrites(application, writes) };
  },
  teamLists: (before, after, context) => {
    const { team, read, after: owners } = ownersMoved(before, after, context);
    if (!team) return {};
    const lists = { organizationId: team.organizationId, teams: context.owners, writer: team.teamId };
    return projectionOf(applicationOwners, read, owners, lists);
  },
});
