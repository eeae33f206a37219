import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import {
  batchDelete,
  batchGet,
  collect,
  deleteFound,
  queryAll,
  rememberedSegmentsList,
  queryItems,
  type PartitionQuery,
  type ReadOptions,
} from '../db/query.ts';
import type { Membership } from '../context/caller.ts';
import { applicationEntries, organizationBuckets } from './list-entries.ts';
import { type TransactItem, transactWrite } from '../db/transactions.ts';
import { counterUpdates, entityWrite, type EntityChange } from '../db/entity-write.ts';
import { environment } from './entities.ts';
import { retryOnConflict, transactionConflict, type RetriesExhausted } from '../db/retry.ts';
import { config } from '../config.ts';
import { REPORT_ENTRY_ATTRIBUTES } from '../db/tables.ts';
import {
  applicationEnvironmentsChange,
  applicationEnvironmentsWrite,
  environmentsOfUncounted,
  getApplication,
  requireLiveApplication,
} from './application-repository.ts';
import * as listEntries from './projections/environment-list-entries.ts';
import * as coverage from './projections/environment-coverage.ts';
import * as nameIndex from './projections/environment-name-index.ts';
import {
  NO_OPEN_ISSUES,
  OPEN_ISSUE_FIELDS,
  streamFigures,
  type ApplicationRecord,
  type EnvironmentRecord,
  type EnvironmentStreams,
  type LastScan,
  type OpenIssueCounts,
  type ReportApplication,
  type ReportEnvironment,
  canSeeTeamResource,
} from './model.ts';
import type { EnvironmentChange } from './application-figures.ts';
import { notFound } from '../errors.ts';

const toRecord = (item: Record<string, unknown> | undefined) => fromItem<EnvironmentRecord>(item);

/**
 * Every index key an environment item carries in its current state: the entity attributes of its projections (one
 * entry per list order and its name's gsi7 entry while live, none once its delete has started). What the index
 * backfill (npm run migrate) gives items written by earlier versions: one without `nameTrigrams` (written before
 * gsi7) gets the unindexed gsi7 entry, which every query reads, and no postings.
 */
export const environmentIndexKeys = (env: EnvironmentRecord): Record<string, string> =>
  env.deleting ? {} : { ...listEntries.listEntryKeys(env), ...nameIndex.entityKeys(env) };

/** The write of an environment from `before` to `after` with its projections; `condition` on what was read. */
const environmentWrite = (
  before: EnvironmentRecord | undefined,
  after: EnvironmentRecord,
  condition?: EntityChange<EnvironmentRecord>['condition'],
) =>
  entityWrite(
    environment,
    {
      key: keys.environment(after.applicationId, after.environmentId),
      before,
      after,
      name: 'environmentChanged',
      condition,
    },
    undefined,
  );

export async function getEnvironmentIncludingDeleting(
  appId: string,
  envId: string,
): Promise<EnvironmentRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.environment(appId, envId) }));
  return toRecord(out.Item);
}

/** The environment, unless unknown or being deleted. */
export async function getEnvironment(appId: string, envId: string): Promise<EnvironmentRecord | undefined> {
  const env = await getEnvironmentIncludingDeleting(appId, envId);
  return env && !env.deleting ? env : undefined;
}

/** Environments by (application, environment) id, deleting ones included; order is not kept. */
export async function getEnvironmentsByKeys(
  refs: { applicationId: string; environmentId: string }[],
): Promise<EnvironmentRecord[]> {
  const items = await batchGet(refs.map((r) => keys.environment(r.applicationId, r.environmentId)));
  return items.map((item) => toRecord(item)!);
}

/** The live environment with this name (case-insensitive) in the application: one GetItem on the name claim. */
export async function getEnvironmentByName(appId: string, name: string): Promise<EnvironmentRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.environmentName(appId, name) }));
  const envId = out.Item?.environmentId as string | undefined;
  return envId ? getEnvironment(appId, envId) : undefined;
}

/** The Query of an application's environments (environmentsOfApp; a request may prefetch it). */
export function environmentsOfAppRead(appId: string): PartitionQuery {
  const { pk, skPrefix } = keys.environmentsOfApp(appId);
  return { partition: pk, skPrefix };
}

/** The application's live environments (its partition's ENV# items). */
export async function environmentsOfApp(appId: string): Promise<EnvironmentRecord[]> {
  const items = await queryAll(environmentsOfAppRead(appId));
  return items.map((item) => toRecord(item)!).filter((env) => !env.deleting);
}

export type EnvironmentOrder = 'name' | 'scanDate';

/**
 * The organization's live environments in index order (name or last scan time, then id), read lazily from the
 * indexes that copy whole items (gsi2, gsi3). `growing`: each call reads 4 times as many as the last (list walks).
 */
export async function* environmentsOfOrg(
  orgId: string,
  order: EnvironmentOrder,
  forward: boolean,
  pageLimit?: number,
  growing = false,
  options: ReadOptions = {},
): AsyncGenerator<EnvironmentRecord> {
  const query = environmentsOfOrgQuery(orgId, order, forward, pageLimit, growing);
  for await (const item of queryItems(query, options)) yield toRecord(item)!;
}

// Each attribute gsi2r copies is a field of the environment's record.
REPORT_ENTRY_ATTRIBUTES satisfies readonly (keyof ReportEnvironment)[];

/**
 * The findings report's walk of the organization (gsi2r in docs/DATA-MODEL.md), both reads side by side: its
 * live environments in name order as gsi2r copies them (1 MB per call; side by side where this process's last walk
 * of the organization cut it: db/query.ts rememberedSegmentsList), and the live applications the caller may see
 * from their compact entries, one Query per bucket of its id order (half a read unit per 4 KB of entries; a
 * BatchGetItem of the records costs half a unit per application). An application being deleted has no entry: its
 * environments, in the index until its cascade removes them, are not reported.
 */
export async function reportEnvironmentsOfOrg(
  orgId: string,
  membership: Membership,
): Promise<[ReportEnvironment[], ReportApplication[]]> {
  const partition = keys.environmentsOfOrgByName(orgId).gsi2pk;
  const environments = rememberedSegmentsList({ index: 'gsi2r', partition, forward: true });
  const applications = async () => {
    const buckets = (await organizationBuckets(orgId)).filter((b) => canSeeTeamResource(membership, b.teamId));
    const attributes = ['applicationId', 'name', 'teamId'];
    const entries = await Promise.all(
      buckets.map((b) => collect(applicationEntries(orgId, b, 'id', true, undefined, attributes))),
    );
    return entries
      .flat()
      .map(({ applicationId, name, teamId }) => ({ applicationId, organizationId: orgId, name, teamId }));
  };
  const [items, apps] = await Promise.all([environments, applications()]);
  return [items.map((item) => toRecord(item)!), apps];
}

/** The Query environmentsOfOrg reads (a list's prefetch names its first call). */
export function environmentsOfOrgQuery(
  orgId: string,
  order: EnvironmentOrder,
  forward: boolean,
  pageLimit?: number,
  growing = false,
): PartitionQuery {
  const index =
    order === 'name'
      ? { index: 'gsi2' as const, partition: keys.environmentsOfOrgByName(orgId).gsi2pk }
      : { index: 'gsi3' as const, partition: keys.environmentsOfOrgByScanDate(orgId).gsi3pk };
  return { ...index, forward, pageLimit, growing };
}

/** The organization's live environments with this name (case-insensitive): reads only those. */
export async function environmentsOfOrgNamed(orgId: string, name: string): Promise<EnvironmentRecord[]> {
  const { gsi2pk, gsi2skPrefix } = keys.environmentsOfOrgNamed(orgId, name);
  const items = await queryAll({ index: 'gsi2', partition: gsi2pk, skPrefix: gsi2skPrefix });
  return items.map((item) => toRecord(item)!).filter((env) => env.name.toLowerCase() === name.toLowerCase());
}

// ---- Writes: each returns TransactWriteItems for the caller to commit with its audit entry.

/**
 * A new environment: its record with its projections (its name claim at `nameTaken`, its name postings), and its
 * application's write (its count and health at `countChanged`: callers retry on it; the organization's counter and
 * the day counters).
 */
export async function environmentCreation(
  app: ApplicationRecord,
  env: EnvironmentRecord,
  now = Date.now(),
): Promise<TransactItem[]> {
  return [
    ...environmentPuts(env),
    ...(await applicationEnvironmentsChange(app, [{ environmentId: env.environmentId, after: env }], now)),
  ];
}

/** The last-scan fields the health aggregates derive from (health.ts environmentHealth). */
const HEALTH_FIELDS = [
  'lastScanStatus',
  'lastScanTimestamp',
  'lastScanHighUntriaged',
  'lastScanMediumUntriaged',
  'lastScanLowUntriaged',
  'lastScanTotalUntriaged',
  ...OPEN_ISSUE_FIELDS,
] as const;

/** The condition that the environment's health-relevant last-scan fields are still the ones read in `env`. */
function healthFieldsUnchanged(env: EnvironmentRecord): {
  condition: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
} {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts = HEALTH_FIELDS.map((field, i) => {
    names[`#hf${i}`] = field;
    if (env[field] === undefined) return `attribute_not_exists(#hf${i})`;
    values[`:hf${i}`] = env[field];
    return `#hf${i} = :hf${i}`;
  });
  return { condition: parts.join(' AND '), names, values };
}

/**
 * The application's write of changes of environments' last-scan fields (each environment's own write conditioned on
 * the fields read, healthFieldsUnchanged), all of one application. The application is read here (a stale read fails
 * its condition: the caller's retry reads again).
 */
async function lastScanHealthWrites(
  changes: { env: EnvironmentRecord; after: Partial<LastScan> }[],
  now = Date.now(),
): Promise<TransactItem[]> {
  const applicationId = changes[0]!.env.applicationId;
  const app = await getApplication(applicationId);
  if (!app) throw notFound(`application ${applicationId} not found`);
  return applicationEnvironmentsChange(
    app,
    changes.map(({ env, after }): EnvironmentChange => ({ environmentId: env.environmentId, before: env, after })),
    now,
  );
}

/**
 * The environment record with its projections (its name claim at `nameTaken`, its name index postings: at most
 * MAX_NAME_TRIGRAMS items in all), alone: when its application is created in the same transaction.
 */
export function environmentPuts(env: EnvironmentRecord): TransactItem[] {
  // Counted from the start: in the coverage counters, and with its open issues (none yet).
  return environmentWrite(undefined, { ...NO_OPEN_ISSUES, ...env, coverageCounted: true });
}

/**
 * Renames a live environment, moving its name claim (fails at `nameTaken` if the new name is taken in the
 * application) and its name index entries. Conditioned on the name read, so that concurrent renames cannot leave
 * postings of a name the environment no longer has (the loser fails at `environmentChanged` and re-reads).
 */
export function environmentRename(env: EnvironmentRecord, name: string): TransactItem[] {
  return environmentWrite(
    env,
    { ...env, name },
    {
      expression: 'attribute_not_exists(deleting) AND #name = :previous',
      names: { '#name': 'name' },
      values: { ':previous': env.name },
    },
  );
}

/**
 * Makes `objectKey` the live environment's default configuration, provided it still is `env`'s current one (else
 * fails at `environmentChanged`).
 */
export function environmentDefaultConfigUpdate(env: EnvironmentRecord, objectKey: string): TransactItem[] {
  return environmentWrite(
    env,
    { ...env, defaultConfigKey: objectKey },
    env.defaultConfigKey
      ? {
          expression: 'attribute_not_exists(deleting) AND defaultConfigKey = :previous',
          values: { ':previous': env.defaultConfigKey },
        }
      : { expression: 'attribute_not_exists(deleting) AND attribute_not_exists(defaultConfigKey)' },
  );
}

/** The condition that the environment's streams are still the version read (none: written before streams). */
function streamsUnchanged(env: EnvironmentRecord): { condition: string; values: Record<string, unknown> } {
  return env.streamsVersion === undefined
    ? { condition: 'attribute_not_exists(streamsVersion)', values: {} }
    : { condition: 'streamsVersion = :streamsVersion', values: { ':streamsVersion': env.streamsVersion } };
}

/**
 * The write of a live environment's scans: its tool streams' latest scans (`streams`, whose union its untriaged
 * figures are: streamFigures, docs/DATA-MODEL.md, Tool streams) and, unless `lastScan` is left undefined, its last
 * scan (`null`: none left): its write with its projections (the scan-date, status, duration and findings index keys
 * in step with the fields), then its application's (its health figures, its counter and day counters). Conditioned
 * on what was read in `env`: its last scan, its streams' version and its health-relevant fields
 * (`environmentChanged`), so that an older scan never overwrites a newer one and no stream's change is lost.
 */
export async function environmentScanWrites(
  env: EnvironmentRecord,
  change: EnvironmentScanChange,
): Promise<TransactItem[]> {
  const { items, after } = environmentScanWrite(env, change);
  return [...items, ...(await lastScanHealthWrites([{ env, after }]))];
}

/**
 * A write of an environment's scans: its streams, its last scan (environmentScanWrites) and, when they change, its
 * open issues by severity (the publication's, from all its finding records; a retest's fix).
 */
export interface EnvironmentScanChange {
  streams: EnvironmentStreams;
  lastScan?: LastScan | null;
  openIssues?: OpenIssueCounts;
}

/** The environment's own write of environmentScanWrites, and the record it writes (for its application's). */
function environmentScanWrite(
  env: EnvironmentRecord,
  change: EnvironmentScanChange,
): { items: TransactItem[]; after: EnvironmentRecord } {
  const lastScan = change.lastScan === undefined ? {} : { ...NO_LAST_SCAN, ...change.lastScan };
  const after: EnvironmentRecord = {
    ...env,
    ...lastScan,
    ...change.openIssues,
    streams: change.streams,
    streamsVersion: (env.streamsVersion ?? 0) + 1,
    ...streamFigures(change.streams),
  };
  const unchanged = healthFieldsUnchanged(env);
  const streams = streamsUnchanged(env);
  const replaced = env.lastScanId
    ? { condition: 'lastScanId = :expected', values: { ':expected': env.lastScanId } }
    : { condition: 'attribute_not_exists(lastScanId)', values: {} };
  const items = environmentWrite(env, after, {
    expression: `attribute_not_exists(deleting) AND ${unchanged.condition} AND ${streams.condition} AND ${replaced.condition}`,
    names: unchanged.names,
    values: { ...unchanged.values, ...streams.values, ...replaced.values },
  });
  return { items, after };
}

/** An environment without a last scan: every last-scan field cleared (those of a scan set over it). */
const NO_LAST_SCAN: Record<keyof LastScan, undefined> = {
  lastScanId: undefined,
  lastScanStatus: undefined,
  lastScanTimestamp: undefined,
  lastScanCompletedTimestamp: undefined,
  lastScanDuration: undefined,
  lastScanTotalUntriaged: undefined,
  lastScanHighUntriaged: undefined,
  lastScanMediumUntriaged: undefined,
  lastScanLowUntriaged: undefined,
  latestScanConfigHash: undefined,
  lastScanHawkscanVersion: undefined,
  latestScanType: undefined,
};

/**
 * Starts an environment delete: the environment leaves the indexes (lists stop reading it) and its name postings
 * are deleted, frees its name and leaves the counts and health aggregates; its scan data is then removed by
 * deleteEnvironmentData. Conditioned on the name and last-scan fields read (the postings deleted are that name's,
 * the figures subtracted that scan's): a concurrent rename or scan fails it at `environmentChanged`.
 */
export async function environmentDeletingMark(
  app: ApplicationRecord,
  env: EnvironmentRecord,
  now = Date.now(),
): Promise<TransactItem[]> {
  const unchanged = healthFieldsUnchanged(env);
  const mark = environmentWrite(
    env,
    { ...env, deleting: true },
    {
      expression: `attribute_not_exists(deleting) AND #name = :name AND ${unchanged.condition}`,
      names: { '#name': 'name', ...unchanged.names },
      values: { ':name': env.name, ...unchanged.values },
    },
  );
  return [
    ...mark,
    ...(await applicationEnvironmentsChange(app, [{ environmentId: env.environmentId, before: env }], now)),
  ];
}

/** Deletes the environment's scan data, then its record (after environmentDeletingMark; a retry resumes). */
export async function deleteEnvironmentData(appId: string, envId: string): Promise<void> {
  const { pk, skPrefix } = keys.environmentData(appId, envId);
  await deleteFound({ partition: pk, skPrefix });
  await batchDelete([keys.environment(appId, envId)]);
}

/**
 * The write of live environments' streams (of one application) whose untriaged figures a write of their findings
 * moved (the projection of those findings' triage: shared/findings/projections/untriaged-streams.ts), from each
 * environment as read to its streams after: its write with its projections (the findings-count index key, gsi6, in
 * step with the total), conditioned on its streams and figures being still the ones read, then its application's
 * (its figures, its counter), once for all, from the application as read now.
 */
export async function environmentStreamsChanges(
  changes: ({ env: EnvironmentRecord } & Pick<EnvironmentScanChange, 'streams' | 'openIssues'>)[],
): Promise<TransactItem[]> {
  if (changes.length === 0) return [];
  const writes = changes.map(({ env, streams, openIssues }) => ({
    env,
    ...environmentScanWrite(env, { streams, openIssues }),
  }));
  return [...writes.flatMap((w) => w.items), ...(await lastScanHealthWrites(writes))];
}

/**
 * What environmentStreamsWrites reads for a write of the streams of environments of application `applicationId`: the
 * application as read now (its write is conditioned on it; 404 when it is gone) and its live environments when its
 * figures need them (environmentsOfUncounted).
 */
export async function environmentStreamsRead(
  applicationId: string,
): Promise<{ app: ApplicationRecord; live: EnvironmentRecord[] | undefined }> {
  const app = await getApplication(applicationId);
  if (!app) throw notFound(`application ${applicationId} not found`);
  return { app, live: await environmentsOfUncounted(app) };
}

/**
 * environmentStreamsChanges from what it reads: `app`, the environments' application as read (fresh: its write is
 * conditioned on it), and `live`, its live environments when its figures need them (environmentsOfUncounted).
 */
export function environmentStreamsWrites(
  changes: { env: EnvironmentRecord; streams: EnvironmentStreams; openIssues?: OpenIssueCounts }[],
  app: ApplicationRecord,
  live: readonly EnvironmentRecord[] | undefined,
  now: number,
): TransactItem[] {
  if (changes.length === 0) return [];
  const writes = changes.map(({ env, streams, openIssues }) => ({
    env,
    ...environmentScanWrite(env, { streams, openIssues }),
  }));
  const figures = writes.map(({ env, after }): EnvironmentChange => ({
    environmentId: env.environmentId,
    before: env,
    after,
  }));
  const changed = new Set(figures.map((c) => c.environmentId));
  const others = live?.filter((env) => !changed.has(env.environmentId));
  return [...writes.flatMap((w) => w.items), ...applicationEnvironmentsWrite(app, figures, others, now)];
}

/**
 * What an application's delete takes out of the overview's coverage counters (projections/environment-coverage.ts):
 * its live environments' shares, as stored now. The delete is conditioned on the application's health version
 * read before this, which every change of an environment's last scan advances: a scan published meanwhile fails it.
 */
export async function applicationCoverageRemoval(appId: string): Promise<TransactItem[]> {
  const { pk, skPrefix } = keys.environmentsOfApp(appId);
  const envs = (await queryAll({ partition: pk, skPrefix, consistent: true })).map((item) => toRecord(item)!);
  return counterUpdates(envs.flatMap((env) => coverage.coverageShare(env, -1)));
}

/**
 * Counts an environment written before the overview's coverage counters in them (npm run migrate): `coverageCounted`
 * set by the environment's write, whose projection adds it, conditioned on it being uncounted, its last scan unchanged
 * and its application live (a deleting application's environments are not counted).
 */
export async function countEnvironmentCoverage(
  appId: string,
  envId: string,
): Promise<'updated' | 'current' | 'gone' | 'conflict'> {
  try {
    return await retryOnConflict({ conflict: transactionConflict() }, async () => {
      const env = await getEnvironmentIncludingDeleting(appId, envId);
      if (!env) return 'gone';
      if (env.deleting || env.coverageCounted) return 'current';
      const app = await getApplication(appId);
      if (!app || app.deleting) return 'current';
      const unchanged = healthFieldsUnchanged(env);
      await transactWrite([
        ...environmentWrite(
          env,
          { ...env, coverageCounted: true },
          {
            expression: `attribute_not_exists(deleting) AND attribute_not_exists(coverageCounted) AND ${unchanged.condition}`,
            names: unchanged.names,
            values: unchanged.values,
          },
        ),
        requireLiveApplication(appId),
      ]);
      return 'updated';
    });
  } catch (error) {
    // Lost every race: left uncounted, for the next run.
    if ((error as Partial<RetriesExhausted>).retryReason) return 'conflict';
    throw error;
  }
}
