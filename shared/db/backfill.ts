import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { ConditionalCheckFailedException, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client.ts';
import { mainTable } from './tables.ts';
import { inParallel } from './query.ts';
import { LostRace, lostRace, retryOnConflict, type RetriesExhausted } from './retry.ts';
import { config } from '../config.ts';

// The index backfill (`npm run migrate`, and `npm start` on a data directory from an earlier version): gives every
// item of the listed entities the index keys its write path gives a new item today, so the lists find items written
// before a key or an index existed. Each entity contributes only the write path's own key function; the scan, the
// conditions, the retries and the bookkeeping are here.

type Item = Record<string, unknown>;

/** An entity's index keys in the item's current state: the function its write path puts new items with. */
export type IndexKeysOf = (item: never) => Record<string, string>;

/** Every attribute that is a key of one of the main table's indexes. */
const INDEX_KEY_ATTRIBUTES = [
  ...new Set(mainTable.globalSecondaryIndexes.flatMap((i) => [i.partitionKey.name, i.sortKey.name])),
];

/** What became of one item. */
export type Outcome = 'updated' | 'current' | 'gone' | 'conflict';

export interface BackfillSummary {
  /** Items the scan read (of the listed entities). */
  scanned: number;
  updated: number;
  /** Already carried the keys they should: nothing written. */
  current: number;
  /** Deleted between the scan and the write: not written (never resurrected). */
  gone: number;
  /** Changed by another write between read and write more times than the retries allow: left for a re-run. */
  conflicts: number;
  /** Items whose write lost to a concurrent change and were read again (then decided on their new state). */
  reread: number;
  /** Updated items per entity. */
  updatedByEntity: Record<string, number>;
  /** Items a step (`steps`) changed, per entity (applications: counted in the health aggregates). */
  steppedByEntity: Record<string, number>;
  /** Segments finished, of `segments`. */
  segmentsDone: number;
  segments: number;
}

export interface BackfillOptions {
  tableName: string;
  /** By `entity` attribute: the write path's key function. */
  entities: Record<string, IndexKeysOf>;
  /**
   * By `entity` attribute: a further step for each item after its keys (aggregates of data written before they
   * existed), with the same outcomes; it writes through the repositories, to config.tableName (= `tableName`).
   */
  steps?: Record<string, (item: Item) => Promise<Outcome>>;
  /** Run once every segment is done without conflicts (marks the migration complete). */
  finish?: () => Promise<void>;
  /** Parallel scan segments (default 4). */
  segments?: number;
  /** Items written at once per segment (default 8). */
  concurrency?: number;
  /** A file recording each segment's progress, so that an interrupted run resumes where it was; removed when done. */
  stateFile?: string;
  onProgress?: (summary: BackfillSummary) => void;
}

/**
 * The keys `keysOf` computes for `item`, and the attributes it read to compute them (with their values, `undefined`
 * for absent ones). The write is conditioned on those reads, so a concurrent change of anything the keys derive from
 * (a rename, a team move, a scan, a delete starting) makes it fail rather than write keys of the old state.
 */
function trackedKeys(item: Item, keysOf: IndexKeysOf): { keys: Record<string, string>; reads: Map<string, unknown> } {
  const reads = new Map<string, unknown>();
  const proxy = new Proxy(item, {
    get(target, name) {
      if (typeof name === 'string') reads.set(name, target[name]);
      return Reflect.get(target, name);
    },
    has(target, name) {
      if (typeof name === 'string') reads.set(name, target[name]);
      return Reflect.has(target, name);
    },
    // A function that enumerates the item (a spread) reads every attribute present: all of them are conditioned
    // on. An attribute added meanwhile is then covered only by the index keys' condition (the write paths change
    // keys with what they derive from), so key functions read attributes by name.
    ownKeys(target) {
      for (const name of Object.keys(target)) reads.set(name, target[name]);
      return Reflect.ownKeys(target);
    },
  });
  return { keys: keysOf(proxy as never), reads };
}

/** The conditional update bringing `item`'s index keys to what `keysOf` computes, or undefined when they already are. */
function keyUpdate(tableName: string, item: Item, keysOf: IndexKeysOf) {
  const { keys, reads } = trackedKeys(item, keysOf);
  const set = Object.entries(keys).filter(([name, value]) => item[name] !== value);
  const remove = INDEX_KEY_ATTRIBUTES.filter((name) => item[name] !== undefined && !(name in keys));
  if (set.length === 0 && remove.length === 0) return undefined;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const alias = (name: string) => {
    const existing = Object.entries(names).find(([, n]) => n === name)?.[0];
    if (existing) return existing;
    const placeholder = `#a${Object.keys(names).length}`;
    names[placeholder] = name;
    return placeholder;
  };
  const value = (v: unknown) => {
    const placeholder = `:v${Object.keys(values).length}`;
    values[placeholder] = v;
    return placeholder;
  };
  // Still there, with the inputs read and the index keys found: otherwise a newer write decides (read again).
  const unchanged = new Map<string, unknown>([
    ...reads,
    ...INDEX_KEY_ATTRIBUTES.map((name) => [name, item[name]] as const),
  ]);
  const conditions = ['attribute_exists(pk)'];
  for (const [name, read] of unchanged)
    conditions.push(read === undefined ? `attribute_not_exists(${alias(name)})` : `${alias(name)} = ${value(read)}`);
  const setClause = set.map(([name, v]) => `${alias(name)} = ${value(v)}`);
  const removeClause = remove.map(alias);
  return new UpdateCommand({
    TableName: tableName,
    Key: { pk: item.pk, sk: item.sk },
    UpdateExpression: [
      setClause.length ? `SET ${setClause.join(', ')}` : '',
      removeClause.length ? `REMOVE ${removeClause.join(', ')}` : '',
    ]
      .join(' ')
      .trim(),
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
  });
}

/**
 * Brings one item (as a scan read it, possibly stale) to its current index keys. When the write loses to a
 * concurrent change the item is read again and decided on its new state: a deleted item stays deleted, a newer
 * write is never overwritten.
 */
export async function backfillItem(
  tableName: string,
  scanned: Item,
  entities: Record<string, IndexKeysOf>,
): Promise<{ outcome: Outcome; rereads: number }> {
  let item: Item = scanned;
  const retry = { conflict: lostRace, backoffMs: 0 };
  return retryOnConflict(retry, async (n): Promise<{ outcome: Outcome; rereads: number }> => {
    const attempt = n - 1;
    const keysOf = entities[String(item.entity)];
    if (!keysOf) return { outcome: 'current', rereads: attempt };
    const update = keyUpdate(tableName, item, keysOf);
    if (!update) return { outcome: 'current', rereads: attempt };
    try {
      await db.send(update);
      return { outcome: 'updated', rereads: attempt };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    const fresh = (
      await db.send(
        new GetCommand({ TableName: tableName, Key: { pk: scanned.pk, sk: scanned.sk }, ConsistentRead: true }),
      )
    ).Item;
    if (!fresh) return { outcome: 'gone', rereads: attempt + 1 };
    item = fresh;
    throw new LostRace('ConditionalCheckFailed');
  }).catch((error: unknown) => {
    if (lostRace(error) === undefined) throw error;
    return { outcome: 'conflict', rereads: (error as RetriesExhausted).attempts };
  });
}

/** The table's indexes as deployed, with their status (ACTIVE, CREATING, ...). */
export async function deployedIndexes(tableName: string): Promise<{ name: string; status: string }[]> {
  const client = new DynamoDBClient({
    region: config.region,
    endpoint: config.dynamodbEndpoint,
    ...(config.dynamodbEndpoint ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  try {
    const table = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
    return (table?.GlobalSecondaryIndexes ?? []).map((i) => ({
      name: i.IndexName!,
      status: i.IndexStatus ?? 'ACTIVE',
    }));
  } finally {
    client.destroy();
  }
}

/** The main table's indexes this version defines that the table lacks. */
export async function missingIndexes(tableName: string): Promise<string[]> {
  const present = new Set((await deployedIndexes(tableName)).map((i) => i.name));
  return mainTable.globalSecondaryIndexes.map((i) => i.indexName).filter((name) => !present.has(name));
}

interface State {
  tableName: string;
  segments: number;
  /** Per segment: where its next page starts (absent: from the beginning), or done. */
  progress: { startKey?: Item; done?: boolean }[];
}

function readState(file: string | undefined, tableName: string, segments: number): State {
  if (file && existsSync(file)) {
    const state = JSON.parse(readFileSync(file, 'utf8')) as State;
    if (state.tableName === tableName && state.segments === segments) return state;
  }
  return { tableName, segments, progress: Array.from({ length: segments }, () => ({})) };
}

/**
 * Scans the table in parallel segments for items of the listed entities and brings each to its current index keys.
 * Idempotent (items already current are only read) and resumable (with `stateFile`, an interrupted run continues
 * from the pages it had finished; without, a re-run reads everything again and writes only what is left).
 */
export async function backfillIndexKeys(options: BackfillOptions): Promise<BackfillSummary> {
  const segments = options.segments ?? 4;
  const state = readState(options.stateFile, options.tableName, segments);
  // Entities with only a step (stored configurations, whose keys never changed) are read too.
  const entityNames = [...new Set([...Object.keys(options.entities), ...Object.keys(options.steps ?? {})])];
  const summary: BackfillSummary = {
    scanned: 0,
    updated: 0,
    current: 0,
    gone: 0,
    conflicts: 0,
    reread: 0,
    updatedByEntity: Object.fromEntries(Object.keys(options.entities).map((e) => [e, 0])),
    steppedByEntity: Object.fromEntries(Object.keys(options.steps ?? {}).map((e) => [e, 0])),
    segmentsDone: state.progress.filter((p) => p.done).length,
    segments,
  };
  const save = () => options.stateFile && writeFileSync(options.stateFile, JSON.stringify(state));

  const runSegment = async (segment: number) => {
    const progress = state.progress[segment];
    while (!progress.done) {
      const page = await db.send(
        new ScanCommand({
          TableName: options.tableName,
          Segment: segment,
          TotalSegments: segments,
          FilterExpression: `#entity IN (${entityNames.map((_, i) => `:e${i}`).join(', ')})`,
          ExpressionAttributeNames: { '#entity': 'entity' },
          ExpressionAttributeValues: Object.fromEntries(entityNames.map((e, i) => [`:e${i}`, e])),
          ExclusiveStartKey: progress.startKey,
        }),
      );
      await inParallel(page.Items ?? [], options.concurrency ?? 8, async (item) => {
        const { outcome, rereads } = await backfillItem(options.tableName, item, options.entities);
        summary.scanned++;
        summary.reread += rereads ? 1 : 0;
        if (outcome === 'updated') {
          summary.updated++;
          summary.updatedByEntity[String(item.entity)]++;
        } else if (outcome === 'current') summary.current++;
        else if (outcome === 'gone') summary.gone++;
        else summary.conflicts++;
        const step = outcome === 'conflict' ? undefined : options.steps?.[String(item.entity)];
        const stepped = step && (await step(item));
        if (stepped === 'updated') summary.steppedByEntity[String(item.entity)]++;
        else if (stepped === 'conflict') summary.conflicts++;
      });
      progress.startKey = page.LastEvaluatedKey;
      if (!progress.startKey) {
        progress.done = true;
        summary.segmentsDone++;
      }
      save();
      options.onProgress?.(summary);
    }
  };
  await Promise.all(Array.from({ length: segments }, (_, segment) => runSegment(segment)));
  if (options.stateFile) rmSync(options.stateFile, { force: true });
  if (summary.conflicts === 0) await options.finish?.();
  return summary;
}

/** Runs `work` for every organization of the table, one after the other (a filtered scan, page by page). */
export async function forEveryOrganization(
  tableName: string,
  work: (orgId: string) => Promise<unknown>,
): Promise<void> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'entity = :entity',
        ExpressionAttributeValues: { ':entity': 'organization' },
        ProjectionExpression: 'organizationId',
        ExclusiveStartKey,
      }),
    );
    for (const org of page.Items ?? []) await work(org.organizationId as string);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}
