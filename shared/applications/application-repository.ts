import { keys } from '../db/keys.ts';
import { conditionFailed, fromItem, named } from '../db/items.ts';
import { retryOnConflict, transactionConflict } from '../db/retry.ts';
import { batchGet, getItem, queryAll, batchDelete, deleteFound } from '../db/query.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { counterUpdates, entityWrite, entityWrites } from '../db/entity-write.ts';
import { application } from './entities.ts';
import { applicationChange, unchangedSinceRead } from './application-change.ts';
import * as listEntries from './projections/application-list-entries.ts';
import * as nameIndex from './projections/application-name-index.ts';
import { COUNTER_ENTITY } from './projections/organization-counters.ts';
import * as applicationHealth from './application-figures.ts';
import type { EnvironmentChange } from './application-figures.ts';
import { conflict, notFound } from '../errors.ts';
import { config } from '../config.ts';
import {
  NO_HEALTH,
  type ApplicationRecord,
  type ApplicationType,
  type BucketHealth,
  type EnvironmentRecord,
} from './model.ts';

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
 * Every index key an application item carries in its current state: the entity attributes of its projections (its
 * list entries and its name's gsi7 entry while live, the deleting entry once its cascade delete has started). What
 * the index backfill (npm run migrate) gives items written by earlier versions: one without `nameTrigrams` (written
 * before gsi7, or in bulk) gets the unindexed gsi7 entry, which every query reads, and no postings.
 */
export const applicationIndexKeys = (app: ApplicationRecord): Record<string, string> =>
  app.deleting ? listEntries.entries(app) : { ...listEntries.entries(app), ...nameIndex.entityKeys(app) };

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
    application,
    apps.map((app) => ({ change: applicationChange(undefined, newApplication(app, indexName)), context: { now } })),
  );
}

/**
 * A new application's item and its name index entries alone, without the counters: for bulk loads (benches,
 * tests), which write each bucket's counter once for all their applications (organizationCounterChange).
 */
export function applicationPuts(app: ApplicationRecord, { indexName = true } = {}): TransactItem[] {
  return entityWrite(application, applicationChange(undefined, newApplication(app, indexName)), {
    now: Date.now(),
    uncounted: true,
  });
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
    entity: COUNTER_ENTITY,
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
    application,
    applicationChange(
      app,
      { ...app, name },
      {
        expression: 'attribute_not_exists(deleting) AND #name = :previous',
        names: { '#name': 'name' },
        values: { ':previous': app.name },
      },
    ),
    { now: Date.now() },
  );
}

/**
 * The application's write of `changes` to its environments (application-figures.ts): its count, status and health
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
  return applicationEnvironmentsWrite(app, changes, others, now);
}

/**
 * applicationEnvironmentsChange from what it reads: `others`, the last scans of the application's other live
 * environments (as stored now, strongly consistent), given whenever applicationHealth.needsOtherEnvironments.
 */
export function applicationEnvironmentsWrite(
  app: ApplicationRecord,
  changes: EnvironmentChange[],
  others: readonly EnvironmentRecord[] | undefined,
  now: number,
): TransactItem[] {
  if (!others && applicationHealth.needsOtherEnvironments(app, changes))
    throw new Error(`application ${app.applicationId}: its figures need its other environments, not read`);
  const after = applicationHealth.project(app, changes, others);
  return entityWrite(application, applicationChange(app, after, unchangedSinceRead(app), 'countChanged'), { now });
}

/**
 * The application's live environments (as stored now, strongly consistent) that its figures after a change of some
 * of them need (the others': applicationEnvironmentsWrite): only while it is not counted yet, for a change that keeps
 * every last scan's time (a triage's; applicationHealth.needsOtherEnvironments); undefined when none are needed.
 */
export async function environmentsOfUncounted(app: ApplicationRecord): Promise<EnvironmentRecord[] | undefined> {
  return app.healthVersion === undefined ? liveEnvironments(app.applicationId) : undefined;
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
  return entityWrite(application, applicationChange(app, { ...app, deleting: true }, unchangedSinceRead(app)), {
    now,
  });
}

// ---- Cascade delete (after applicationDeletingMark has committed).

/** Deletes every item of the application's partition, the application record last, so a retry can resume. */
export async function deleteApplicationPartition(appId: string): Promise<void> {
  const { pk } = keys.applicationPartition(appId);
  const own = keys.application(appId);
  await deleteFound({ partition: pk }, (item) => item.sk === own.sk);
  await batchDelete([own]);
}
