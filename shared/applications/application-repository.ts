import { keys } from '../db/keys.ts';
import { conditionFailed, fromItem, named } from '../db/items.ts';
import { retryOnConflict, transactionConflict } from '../db/retry.ts';
import { batchGet, getItem, queryAll } from '../db/query.ts';
import { batchDelete, deleteFound } from '../db/query.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { counterUpdates, entityWrite, entityWrites, type EntityChange, type Projection } from '../db/entity-write.ts';
import * as listEntries from './projections/application-list-entries.ts';
import * as nameIndex from './projections/application-name-index.ts';
import * as organizationCounters from './projections/organization-counters.ts';
import * as healthDayCounters from './projections/health-day-counters.ts';
import * as applicationHealth from './projections/application-health.ts';
import * as riskiest from './projections/riskiest-applications.ts';
import type { EnvironmentChange } from './projections/application-health.ts';
import { conflict, notFound } from '../errors.ts';
import { config } from '../config.ts';
import {
  NO_HEALTH,
  type ApplicationRecord,
  type ApplicationType,
  type BucketHealth,
  type EnvironmentRecord,
} from './model.ts';

export type { ApplicationRecord, ApplicationStatus, ApplicationType } from './model.ts';

/** Fails the transaction (at `applicationGone`) unless the application exists and no delete of it has started. */
export const requireLiveApplication = (appId: string): TransactItem =>
  named('applicationGone', {
    ConditionCheck: {
      TableName: config.tableName,
      Key: keys.application(appId),
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleting)',
    },
  });

/**
 * Commits a change to state the application owns (its hosted description, OAS mapping, scan policy), built again
 * from fresh reads when another request changed that state first. `prepare` builds the transaction:
 * `requireLiveApplication` and the write conditional on what was read (any other failed condition is a lost race);
 * it returns nothing when there is nothing to write.
 */
export async function commitToLiveApplication(
  appId: string,
  prepare: () => Promise<TransactItem[] | undefined>,
): Promise<void> {
  await retryOnConflict(
    {
      conflict: transactionConflict(),
      exhausted: () => conflict(`application ${appId} was changed concurrently; retry`),
    },
    async () => {
      const items = await prepare();
      if (!items) return;
      try {
        await transactWrite(items);
      } catch (error) {
        if (conditionFailed(error, 'applicationGone')) throw notFound(`application ${appId} not found`);
        throw error;
      }
    },
  );
}

const toRecord = (item: Record<string, unknown> | undefined) => fromItem<ApplicationRecord>(item);

/** The application, unless unknown or being deleted. */
export async function getApplication(appId: string): Promise<ApplicationRecord | undefined> {
  const app = await getApplicationIncludingDeleting(appId);
  return app && !app.deleting ? app : undefined;
}

/** The application even while its delete is in progress (a retried DELETE resumes it). */
export async function getApplicationIncludingDeleting(appId: string): Promise<ApplicationRecord | undefined> {
  return toRecord(await getItem(keys.application(appId)));
}

/** Live applications by id (unknown and deleting ones are left out); order is not kept. */
export async function getApplications(appIds: string[]): Promise<ApplicationRecord[]> {
  const items = await batchGet([...new Set(appIds)].map((id) => keys.application(id)));
  return items.map((item) => toRecord(item)!).filter((app) => !app.deleting);
}

// ---- Writes: each returns TransactWriteItems for the caller to commit with its audit entry.

/**
 * The projections of an application write at `now` (docs/DATA-MODEL.md, Projections): its list entries, its name
 * index, the organization's counters, the health day counters and the overview's riskiest entry.
 */
const projections = (now = Date.now()): readonly Projection<ApplicationRecord>[] => [
  listEntries.project,
  nameIndex.project,
  organizationCounters.project,
  healthDayCounters.project(now),
  riskiest.project,
];

/**
 * Every index key an application item carries in its current state: the entity attributes of its projections (its
 * list entries and its name's gsi7 entry while live, the deleting entry once its cascade delete has started). What
 * the index backfill (npm run migrate) gives items written by earlier versions: one without `nameTrigrams` (written
 * before gsi7, or in bulk) gets the unindexed gsi7 entry, which every query reads, and no postings.
 */
export const applicationIndexKeys = (app: ApplicationRecord): Record<string, string> =>
  app.deleting ? listEntries.entries(app) : { ...listEntries.entries(app), ...nameIndex.entityKeys(app) };

/** The change of an application from `before` to `after`, named `name`; `condition` on what was read. */
const applicationChange = (
  before: ApplicationRecord | undefined,
  after: ApplicationRecord,
  condition?: EntityChange<ApplicationRecord>['condition'],
  name = 'applicationChanged',
): EntityChange<ApplicationRecord> => ({
  key: keys.application(after.applicationId),
  entity: 'application',
  before,
  after,
  name,
  condition,
});

/** A new application as stored: counted in the health aggregates from the start; `indexName: false`, in bulk. */
const newApplication = (app: ApplicationRecord, indexName: boolean): ApplicationRecord => ({
  health: NO_HEALTH,
  healthVersion: 0,
  ...app,
  ...(indexName ? {} : { nameTrigrams: false }),
});

/**
 * New applications with their projections: their name index entries (at most MAX_NAME_TRIGRAMS items each) and
 * their buckets' counters (one Update per bucket). `indexName: false` (creations of many applications in one
 * transaction, which has no room for the postings): their names are found by every query through the unindexed
 * partition instead.
 */
export function applicationsCreation(apps: ApplicationRecord[], { indexName = true } = {}): TransactItem[] {
  const now = Date.now();
  return entityWrites(
    apps.map((app) => ({
      change: applicationChange(undefined, newApplication(app, indexName)),
      projections: projections(now),
    })),
  );
}

/**
 * A new application's item and its name index entries alone, without the counters: for bulk loads (benches,
 * tests), which write each bucket's counter once for all their applications (organizationCounterChange).
 */
export function applicationPuts(app: ApplicationRecord, { indexName = true } = {}): TransactItem[] {
  return entityWrite(applicationChange(undefined, newApplication(app, indexName)), [
    listEntries.project,
    nameIndex.project,
    riskiest.project,
  ]);
}

/** A bulk load's change of a bucket's counters (applicationPuts); every other write counts through its projections. */
export function organizationCounterChange(
  orgId: string,
  applicationType: ApplicationType,
  teamId: string | undefined,
  delta: { applications: number; environments: number; health?: BucketHealth },
): TransactItem {
  const health = Object.entries(delta.health ?? {}).filter(([, n]) => n !== 0);
  const add = { applications: delta.applications, environments: delta.environments, ...Object.fromEntries(health) };
  const change = {
    key: keys.organizationCounter(orgId, applicationType, teamId),
    entity: organizationCounters.COUNTER_ENTITY,
    add,
  };
  return counterUpdates([change])[0]!;
}

/**
 * Renames a live application, moving its name index entries. Conditioned on the name read (besides live), so that
 * two concurrent renames cannot leave the postings of a name the application no longer has: the loser fails at
 * `applicationChanged` and re-reads.
 */
export function applicationRename(app: ApplicationRecord, name: string): TransactItem[] {
  return entityWrite(
    applicationChange(
      app,
      { ...app, name },
      {
        expression: 'attribute_not_exists(deleting) AND #name = :previous',
        names: { '#name': 'name' },
        values: { ':previous': app.name },
      },
    ),
    projections(),
  );
}

/**
 * The condition of writes that change what an application counts in the organization's counters: it is live and
 * still has the owner, environment count and health (version) read, so the counters change by exactly what was
 * counted.
 */
function unchangedSinceRead(app: ApplicationRecord): EntityChange<ApplicationRecord>['condition'] {
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

/**
 * The application's write of `changes` to its environments (application-health.ts): its count, status and health
 * figures with their projections (list entries, the organization's counter, day counters), conditioned on what was
 * read (`countChanged`: callers retry on it). Its other environments are read (strongly consistent: decided on
 * together with its health version) only when its figures need them.
 */
export async function applicationEnvironmentsChange(
  app: ApplicationRecord,
  changes: EnvironmentChange[],
  now = Date.now(),
): Promise<TransactItem[]> {
  const changed = new Set(changes.map((c) => c.environmentId));
  const others = applicationHealth.needsOtherEnvironments(app, changes)
    ? (await liveEnvironments(app.applicationId)).filter((env) => !changed.has(env.environmentId))
    : undefined;
  const after = applicationHealth.project(app, changes, others);
  return entityWrite(applicationChange(app, after, unchangedSinceRead(app), 'countChanged'), projections(now));
}

/** The application's live environments as stored now (strongly consistent). */
async function liveEnvironments(appId: string): Promise<EnvironmentRecord[]> {
  const { pk, skPrefix } = keys.environmentsOfApp(appId);
  const items = await queryAll({ partition: pk, skPrefix, consistent: true });
  return items.map((item) => fromItem<EnvironmentRecord>(item)!).filter((env) => !env.deleting);
}

/**
 * Starts a cascade delete: from this write on the application is invisible (getApplication, lists) and leaves the
 * organization's counters, and its name index entry is removed. Conditioned on the environment count, owner and
 * health read, so the counters drop by exactly what was visible.
 */
export function applicationDeletingMark(app: ApplicationRecord, now = Date.now()): TransactItem[] {
  return entityWrite(applicationChange(app, { ...app, deleting: true }, unchangedSinceRead(app)), projections(now));
}

/**
 * THE way an application changes owner (teams issue): sets or clears `teamId` on a live application and moves its
 * counts between the organization's per-team counters, in one transaction with the caller's audit entry.
 * Environments carry no copy of the team (lists join them to their application), so nothing else changes.
 * `app` must be freshly read: the write is conditioned on its team and environment count.
 */
export function applicationOwnershipUpdate(app: ApplicationRecord, teamId: string | undefined): TransactItem[] {
  return applicationsOwnershipUpdate([{ app, teamId }]);
}

/**
 * applicationOwnershipUpdate for several applications in one transaction: one Update per application and one
 * per counter, net of all the moves (DynamoDB refuses two operations on one item in a transaction).
 */
export function applicationsOwnershipUpdate(
  changes: { app: ApplicationRecord; teamId: string | undefined }[],
  now = Date.now(),
): TransactItem[] {
  return entityWrites(
    changes
      .filter(({ app, teamId }) => app.teamId !== teamId)
      .map(({ app, teamId }) => ({
        // The list entries move to the new owner's partitions in the same write (its list entries projection).
        change: applicationChange(app, { ...app, teamId }, unchangedSinceRead(app)),
        projections: projections(now),
      })),
  );
}

// ---- Cascade delete (after applicationDeletingMark has committed).

/** Deletes every item of the application's partition, the application record last, so a retry can resume. */
export async function deleteApplicationPartition(appId: string): Promise<void> {
  const { pk } = keys.applicationPartition(appId);
  const own = keys.application(appId);
  await deleteFound({ partition: pk }, (item) => item.sk === own.sk);
  await batchDelete([own]);
}
