import { keys } from '../db/keys.ts';
import { conditionFailed, fromItem, named } from '../db/items.ts';
import { retryOnConflict, transactionConflict } from '../db/retry.ts';
import { batchGet, getItem } from '../db/query.ts';
import { batchDelete, deleteFound } from '../db/query.ts';
import { setAndRemove, transactWrite, type TransactItem } from '../db/transactions.ts';
import { entityWrite, type EntityChange, type Projection } from '../db/entity-write.ts';
import * as listEntries from './projections/application-list-entries.ts';
import * as nameIndex from './projections/application-name-index.ts';
import { conflict, notFound } from '../errors.ts';
import { config } from '../config.ts';
import { dayCounterChanges, healthUnchanged, healthUpdateParts, type ApplicationHealthUpdate } from './health.ts';
import {
  addBucketHealth,
  bucketShare,
  NO_HEALTH,
  type ApplicationRecord,
  type ApplicationStatus,
  type ApplicationType,
  type BucketHealth,
} from './model.ts';

export type { ApplicationRecord, ApplicationStatus, ApplicationType } from './model.ts';

const COMMIT_ATTEMPTS = 3;

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
      attempts: COMMIT_ATTEMPTS,
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
 * The projections of an application write (docs/DATA-MODEL.md, Projections): its list entries and its name index.
 * The counts, health aggregates and bucket moves are written beside them (below, health.ts).
 */
const PROJECTIONS: readonly Projection<ApplicationRecord>[] = [listEntries.project, nameIndex.project];

/**
 * Every index key an application item carries in its current state: the entity attributes of its projections (its
 * list entries and its name's gsi7 entry while live, the deleting entry once its cascade delete has started). What
 * the index backfill (npm run migrate) gives items written by earlier versions: one without `nameTrigrams` (written
 * before gsi7, or in bulk) gets the unindexed gsi7 entry, which every query reads, and no postings.
 */
export const applicationIndexKeys = (app: ApplicationRecord): Record<string, string> =>
  app.deleting ? listEntries.entries(app) : { ...listEntries.entries(app), ...nameIndex.entityKeys(app) };

/** The write of an application from `before` to `after` with its projections; `condition` on what was read. */
const applicationWrite = (
  before: ApplicationRecord | undefined,
  after: ApplicationRecord,
  condition?: EntityChange<ApplicationRecord>['condition'],
) =>
  entityWrite(
    {
      key: keys.application(after.applicationId),
      entity: 'application',
      before,
      after,
      name: 'applicationChanged',
      condition,
    },
    PROJECTIONS,
  );

/**
 * A new application with its name index entries (at most MAX_NAME_TRIGRAMS items). `indexName: false` (creations
 * of many applications in one transaction, which has no room for the postings): its name is found by every query
 * through the unindexed partition instead.
 */
export function applicationPuts(app: ApplicationRecord, { indexName = true } = {}): TransactItem[] {
  // A new application is counted in the health aggregates from the start (its creator adds it to its bucket).
  return applicationWrite(undefined, {
    health: NO_HEALTH,
    healthVersion: 0,
    ...app,
    ...(indexName ? {} : { nameTrigrams: false }),
  });
}

/**
 * Renames a live application, moving its name index entries. Conditioned on the name read (besides live), so that
 * two concurrent renames cannot leave the postings of a name the application no longer has: the loser fails at
 * `applicationChanged` and re-reads.
 */
export function applicationRename(app: ApplicationRecord, name: string): TransactItem[] {
  return applicationWrite(
    app,
    { ...app, name },
    {
      expression: 'attribute_not_exists(deleting) AND #name = :previous',
      names: { '#name': 'name' },
      values: { ':previous': app.name },
    },
  );
}

/**
 * Changes the environment count of a live application (and its status with it). Conditioned on the count (and owner)
 * read by the caller, so two concurrent environment writes cannot both decide the status from a stale count, nor
 * count the environment in a team's counter the application has just left: the loser fails at `countChanged`.
 */
export function applicationEnvironmentCountChange(
  app: ApplicationRecord,
  delta: 1 | -1,
  health: ApplicationHealthUpdate,
): TransactItem {
  const count = app.environmentCount + delta;
  const status: ApplicationStatus = count > 0 ? 'ACTIVE' : 'ENV_INCOMPLETE';
  const unchanged = unchangedSinceRead(app);
  // The health change of the same environment write (one Update per item in a transaction).
  const healthParts = healthUpdateParts(health);
  return named('countChanged', {
    Update: {
      TableName: config.tableName,
      Key: keys.application(app.applicationId),
      UpdateExpression: setAndRemove(
        ['environmentCount = :count', 'applicationStatus = :status', 'gsi1sk = :gsi1sk', ...healthParts.set],
        healthParts.remove,
      ),
      ConditionExpression: `${unchanged.condition} AND ${healthParts.condition}`,
      ExpressionAttributeNames: healthParts.names,
      ExpressionAttributeValues: {
        ':count': count,
        ':status': status,
        ':gsi1sk': listEntries.bucketEntryKeys(app, { applicationStatus: status }).gsi1sk,
        ...unchanged.values,
        ...healthParts.values,
      },
    },
  });
}

/**
 * The condition of writes that move an application's counts between counter buckets: it is live and still has the
 * owner and environment count read, so the counters change by exactly what was counted.
 */
function unchangedSinceRead(app: ApplicationRecord): { condition: string; values: Record<string, unknown> } {
  const live = 'attribute_exists(pk) AND attribute_not_exists(deleting) AND environmentCount = :read';
  return app.teamId
    ? { condition: `${live} AND teamId = :oldTeam`, values: { ':read': app.environmentCount, ':oldTeam': app.teamId } }
    : { condition: `${live} AND attribute_not_exists(teamId)`, values: { ':read': app.environmentCount } };
}

/** unchangedSinceRead, and its health figures too: for writes that move the application's share between buckets. */
function unchangedWithHealth(app: ApplicationRecord): { condition: string; values: Record<string, unknown> } {
  const [base, health] = [unchangedSinceRead(app), healthUnchanged(app)];
  return { condition: `${base.condition} AND ${health.condition}`, values: { ...base.values, ...health.values } };
}

/** What a counted application adds to its bucket's health sums (nothing while not counted). */
const healthShare = (app: ApplicationRecord, sign: 1 | -1): BucketHealth | undefined =>
  app.healthVersion === undefined
    ? undefined
    : bucketShare({ ...NO_HEALTH, ...app.health }, app.environmentCount > 0, sign);

/** A counted application's day counter, as the side of a move (health.ts dayCounterChanges). */
const scanDay = (app: ApplicationRecord, teamId: string | undefined) =>
  app.healthVersion === undefined ? undefined : { teamId, scannedAt: app.health?.scannedAt ?? 0 };

/**
 * Starts a cascade delete: from this write on the application is invisible (getApplication, lists) and leaves the
 * organization's counters, and its name index entry is removed. Conditioned on the environment count and owner read,
 * so the counters drop by exactly what was visible.
 */
export function applicationDeletingMark(app: ApplicationRecord, now = Date.now()): TransactItem[] {
  const unchanged = unchangedWithHealth(app);
  return [
    ...applicationWrite(app, { ...app, deleting: true }, { expression: unchanged.condition, values: unchanged.values }),
    organizationCounterChange(app.organizationId, app.applicationType, app.teamId, {
      applications: -1,
      environments: -app.environmentCount,
      health: healthShare(app, -1),
    }),
    ...dayCounterChanges(
      app.organizationId,
      [{ applicationType: app.applicationType, from: scanDay(app, app.teamId) }],
      now,
    ),
  ];
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
 * change per counter bucket, net of all the moves (DynamoDB refuses two operations on one item in a transaction).
 */
export function applicationsOwnershipUpdate(
  changes: { app: ApplicationRecord; teamId: string | undefined }[],
  now = Date.now(),
): TransactItem[] {
  const moves = changes.filter(({ app, teamId }) => app.teamId !== teamId);
  const buckets = new Map<string, { app: ApplicationRecord; teamId: string | undefined; delta: OrganizationCounts }>();
  const count = (app: ApplicationRecord, teamId: string | undefined, sign: 1 | -1) => {
    const { sk } = keys.organizationCounter(app.organizationId, app.applicationType, teamId);
    const bucket = buckets.get(sk) ?? { app, teamId, delta: { applications: 0, environments: 0 } };
    bucket.delta.applications += sign;
    bucket.delta.environments += sign * app.environmentCount;
    bucket.delta.health = addBucketHealth(bucket.delta.health, healthShare(app, sign));
    buckets.set(sk, bucket);
  };
  const updates = moves.map(({ app, teamId }): TransactItem => {
    count(app, app.teamId, -1);
    count(app, teamId, 1);
    const { condition, values } = unchangedWithHealth(app);
    // The list entries move to the new owner's partitions in the same write (its list entries projection).
    return applicationWrite(app, { ...app, teamId }, { expression: condition, values })[0]!;
  });
  const counters = [...buckets.values()]
    .filter(
      ({ delta }) =>
        delta.applications !== 0 || delta.environments !== 0 || Object.values(delta.health ?? {}).some((n) => n !== 0),
    )
    .map(({ app, teamId, delta }) => organizationCounterChange(app.organizationId, app.applicationType, teamId, delta));
  const days = moves.length
    ? dayCounterChanges(
        moves[0].app.organizationId,
        moves.map(({ app, teamId }) => ({
          applicationType: app.applicationType,
          from: scanDay(app, app.teamId),
          to: scanDay(app, teamId),
        })),
        now,
      )
    : [];
  return [...updates, ...counters, ...days];
}

// ---- Organization counters (keys.organizationCounter): live applications and environments per type and team.

export interface OrganizationCounts {
  applications: number;
  environments: number;
  /** The change of the bucket's health sums (health.ts). */
  health?: BucketHealth;
}

export function organizationCounterChange(
  orgId: string,
  applicationType: ApplicationType,
  teamId: string | undefined,
  delta: OrganizationCounts,
): TransactItem {
  const health = Object.entries(delta.health ?? {}).filter(([, n]) => n !== 0);
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.organizationCounter(orgId, applicationType, teamId),
      UpdateExpression: `SET entity = :entity ADD applications :apps, environments :envs${health.map(([name]) => `, ${name} :${name}`).join('')}`,
      ExpressionAttributeValues: {
        ':entity': 'organizationCounter',
        ':apps': delta.applications,
        ':envs': delta.environments,
        ...Object.fromEntries(health.map(([name, n]) => [`:${name}`, n])),
      },
    },
  };
}

// ---- Cascade delete (after applicationDeletingMark has committed).

/** Deletes every item of the application's partition, the application record last, so a retry can resume. */
export async function deleteApplicationPartition(appId: string): Promise<void> {
  const { pk } = keys.applicationPartition(appId);
  const own = keys.application(appId);
  await deleteFound({ partition: pk }, (item) => item.sk === own.sk);
  await batchDelete([own]);
}
