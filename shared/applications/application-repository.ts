import { keys } from '../db/keys.ts';
import { cancellationReasons, fromItem } from '../db/items.ts';
import { retryOnConflict, transactionConflict } from '../db/retry.ts';
import { batchGet, getItem } from '../db/query.ts';
import { batchDelete, deleteFound } from '../db/query.ts';
import { putNewItem, setAndRemove, transactWrite, type TransactItem } from '../db/transactions.ts';
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

/** Fails the transaction unless the application exists and no delete of it has started. */
export const requireLiveApplication = (appId: string): TransactItem => ({
  ConditionCheck: {
    TableName: config.tableName,
    Key: keys.application(appId),
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleting)',
  },
});

/**
 * Commits a change to state the application owns (its hosted description, OAS mapping, scan policy), built again
 * from fresh reads when another request changed that state first. `prepare` builds the transaction: item 0 is
 * `requireLiveApplication`, item 1 the write conditional on what was read; it returns nothing when there is
 * nothing to write.
 */
export async function commitToLiveApplication(
  appId: string,
  prepare: () => Promise<TransactItem[] | undefined>,
): Promise<void> {
  await retryOnConflict(
    {
      attempts: COMMIT_ATTEMPTS,
      conflict: transactionConflict([1]),
      exhausted: () => conflict(`application ${appId} was changed concurrently; retry`),
    },
    async () => {
      const items = await prepare();
      if (!items) return;
      try {
        await transactWrite(items);
      } catch (error) {
        if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed')
          throw notFound(`application ${appId} not found`);
        throw error;
      }
    },
  );
}

/** `{ a: 1 }` -> `{ ':a': 1 }`: key attributes as the expression values of an UpdateExpression naming them. */
const prefixed = (attributes: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(attributes).map(([k, v]) => [`:${k}`, v]));

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
 * The list entries' keys of a live application (keys.applicationListEntries) after `changes`. Reads the record's
 * fields by name (no spread): the index backfill (shared/db/backfill.ts) conditions its write on exactly the fields
 * read.
 */
const listEntries = (
  app: ApplicationRecord,
  changes: Partial<Pick<ApplicationRecord, 'name' | 'teamId' | 'applicationStatus'>> = {},
) => {
  const teamId = 'teamId' in changes ? changes.teamId : app.teamId;
  return keys.applicationListEntries(
    app.organizationId,
    app.applicationType,
    teamId,
    changes.name ?? app.name,
    app.applicationId,
    changes.applicationStatus ?? app.applicationStatus,
  );
};

/**
 * Every index key an application item carries in its current state: its list entries and its name's gsi7 entry
 * while live, the deleting entry once its cascade delete has started. What a new item is written with, and what the
 * index backfill (npm run migrate) gives items written by earlier versions: one without `nameTrigrams` (written
 * before gsi7, or in bulk) gets the unindexed gsi7 entry, which every query reads, and no postings.
 */
export const applicationIndexKeys = (app: ApplicationRecord): Record<string, string> =>
  app.deleting
    ? keys.deletingApplication(app.organizationId, app.applicationId)
    : {
        ...listEntries(app),
        ...keys.applicationNameIndex(app.organizationId, app.applicationId, app.name, app.nameTrigrams === true).entity,
        ...scanTimeEntry(app),
      };

/** The gsi5 entry of a live application by its newest scan time (health.ts), when it has one. */
const scanTimeEntry = (app: ApplicationRecord) => {
  const scannedAt = app.health?.scannedAt ?? 0;
  return scannedAt > 0 ? keys.applicationByScanTime(app.organizationId, app.applicationId, scannedAt) : {};
};

/**
 * The name trigram index of an application (keys.applicationNameIndex): the attributes its own item carries and the
 * posting items to put. The one derivation creates, renames and a backfill of existing data use (`indexed: false`:
 * the entity's attributes alone, in the unindexed partition, which every query reads).
 */
export function applicationNameIndex(
  app: Pick<ApplicationRecord, 'organizationId' | 'applicationId' | 'name'>,
  indexed = true,
) {
  const { entity, postings, nameTrigrams } = keys.applicationNameIndex(
    app.organizationId,
    app.applicationId,
    app.name,
    indexed,
  );
  const posting = (key: Record<string, string>) => ({
    ...key,
    entity: 'nameGram',
    applicationId: app.applicationId,
    name: app.name,
  });
  return { entity: { ...entity, nameTrigrams }, postings: postings.map(posting) };
}

/**
 * A new application with its name index entries (at most MAX_NAME_TRIGRAMS items). `indexName: false` (creations
 * of many applications in one transaction, which has no room for the postings): its name is found by every query
 * through the unindexed partition instead.
 */
export function applicationPuts(app: ApplicationRecord, { indexName = true } = {}): TransactItem[] {
  const index = applicationNameIndex(app, indexName);
  // A new application is counted in the health aggregates from the start (its creator adds it to its bucket).
  const record = { health: NO_HEALTH, healthVersion: 0, ...app, nameTrigrams: index.entity.nameTrigrams };
  return [
    putNewItem({
      ...keys.application(app.applicationId),
      ...applicationIndexKeys(record),
      entity: 'application',
      ...record,
    }),
    ...index.postings.map((Item): TransactItem => ({ Put: { TableName: config.tableName, Item } })),
  ];
}

/**
 * The writes that move a name's trigram index from `before` to `after` (application or environment): the posting
 * items of the old name that the new one has not are deleted, the new ones put (overwriting the shared ones, whose
 * copy of the name changes). Returns the entity's new index attributes as SET clauses with their values, and those
 * to REMOVE.
 */
export function nameIndexChange(
  appId: string,
  ownerId: string,
  before: { name: string; nameTrigrams?: boolean },
  after: { entity: Record<string, unknown>; postings: Record<string, unknown>[] },
) {
  const kept = new Set(after.postings.map((p) => p.sk));
  const stale = before.nameTrigrams
    ? keys.nameGramPostings(appId, ownerId, before.name).filter((key) => !kept.has(key.sk))
    : [];
  const items: TransactItem[] = [
    ...stale.map((Key): TransactItem => ({ Delete: { TableName: config.tableName, Key } })),
    ...after.postings.map((Item): TransactItem => ({ Put: { TableName: config.tableName, Item } })),
  ];
  const { gsi7pk, gsi7sk, nameTrigrams } = after.entity as { gsi7pk?: string; gsi7sk?: string; nameTrigrams: boolean };
  const set = ['nameTrigrams = :nameTrigrams', ...(gsi7pk ? ['gsi7pk = :gsi7pk', 'gsi7sk = :gsi7sk'] : [])];
  const values = { ':nameTrigrams': nameTrigrams, ...(gsi7pk ? { ':gsi7pk': gsi7pk, ':gsi7sk': gsi7sk } : {}) };
  return { items, set, values, remove: gsi7pk ? [] : ['gsi7pk', 'gsi7sk'] };
}

/**
 * Renames a live application, moving its name index entries. Conditioned on the name read (besides live), so that
 * two concurrent renames cannot leave the postings of a name the application no longer has: the loser fails with
 * ConditionalCheckFailed at index 0 and re-reads.
 */
export function applicationRename(app: ApplicationRecord, name: string): TransactItem[] {
  const { gsi4sk } = listEntries(app, { name });
  const change = nameIndexChange(app.applicationId, app.applicationId, app, applicationNameIndex({ ...app, name }));
  const values = { ':name': name, ':gsi4sk': gsi4sk, ':previous': app.name, ...change.values };
  const sets = ['#name = :name', 'gsi4sk = :gsi4sk', ...change.set];
  return [
    {
      Update: {
        TableName: config.tableName,
        Key: keys.application(app.applicationId),
        UpdateExpression: setAndRemove(sets, change.remove),
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleting) AND #name = :previous',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: values,
      },
    },
    ...change.items,
  ];
}

/**
 * Changes the environment count of a live application (and its status with it). Conditioned on the count (and owner)
 * read by the caller, so two concurrent environment writes cannot both decide the status from a stale count, nor
 * count the environment in a team's counter the application has just left.
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
  return {
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
        ':gsi1sk': listEntries(app, { applicationStatus: status }).gsi1sk,
        ...unchanged.values,
        ...healthParts.values,
      },
    },
  };
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
    {
      Update: {
        TableName: config.tableName,
        Key: keys.application(app.applicationId),
        UpdateExpression:
          'SET deleting = :true, gsi5pk = :gsi5pk, gsi5sk = :gsi5sk REMOVE gsi1pk, gsi1sk, gsi4pk, gsi4sk, gsi6pk, gsi6sk, gsi7pk, gsi7sk',
        ConditionExpression: unchanged.condition,
        ExpressionAttributeValues: {
          ':true': true,
          ...prefixed(keys.deletingApplication(app.organizationId, app.applicationId)),
          ...unchanged.values,
        },
      },
    },
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
    // The list entries move to the new owner's partitions in the same write.
    const { gsi1pk, gsi4pk, gsi6pk } = listEntries(app, { teamId });
    const entries = { ':gsi1pk': gsi1pk, ':gsi4pk': gsi4pk, ':gsi6pk': gsi6pk };
    const setEntries = 'gsi1pk = :gsi1pk, gsi4pk = :gsi4pk, gsi6pk = :gsi6pk';
    return {
      Update: {
        TableName: config.tableName,
        Key: keys.application(app.applicationId),
        UpdateExpression: teamId ? `SET teamId = :team, ${setEntries}` : `SET ${setEntries} REMOVE teamId`,
        ConditionExpression: condition,
        ExpressionAttributeValues: teamId ? { ...values, ...entries, ':team': teamId } : { ...values, ...entries },
      },
    };
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
