import { BatchGetCommand, BatchWriteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client.ts';
import { consistentReadsRequested } from './consistent-reads.ts';
import { config } from '../config.ts';
import { indexKeyNames, type MainIndex } from './tables.ts';
import { itemReadId, queryReadId, registerPrefetch, takePrefetched } from './prefetch.ts';
import type { Caller } from '../context/caller.ts';

type Item = Record<string, unknown>;

/** One partition of the table or of an index, optionally narrowed by a sort-key prefix or range. */
export interface PartitionQuery {
  index?: MainIndex;
  partition: string;
  skPrefix?: string;
  /** Inclusive sort-key bounds. */
  skFrom?: string;
  skTo?: string;
  /** Ascending sort-key order unless false. */
  forward?: boolean;
  /** Items read per call: a list that needs n items asks for about n. */
  pageLimit?: number;
  /**
   * Each further call asks for 4 times as many (up to 1,000): a walk that a filter thins needs few round trips. After
   * a call that DynamoDB cut at 1 MB, the next asks only for the rest of what was asked.
   */
  growing?: boolean;
  /** Only these attributes (e.g. the keys, for deletes). */
  attributes?: string[];
  /** A strongly consistent read (the table, not an index): every write committed before it is seen. */
  consistent?: boolean;
  /**
   * An index read whose caller reads each item again by key: allowed among consistent reads (db/consistent-reads.ts),
   * where any other index read is refused.
   */
  verifiedByKey?: boolean;
}

/**
 * The sort keys that begin with `prefix`, as a range (PartitionQuery `skFrom`, `skTo`): the items `skPrefix` reads,
 * for a Query a request makes many of in a big partition. DynamoDB Local answers begins_with by scanning the
 * partition (50-400 ms in one of 60,000 items), a range from its index (a few ms). No key holds the largest code
 * point, which bounds every key that starts with the prefix.
 */
export const prefixRange = (prefix: string) => ({ skFrom: prefix, skTo: `${prefix}\u{10FFFF}` });

type QueryOutput = { Items?: Item[]; LastEvaluatedKey?: Item; Count?: number };

/** One Query call of `query`: from `startKey`, at most `limit` items. */
function queryCall(query: PartitionQuery, startKey: Item | undefined, limit: number | undefined): Promise<QueryOutput> {
  if (query.index && !query.verifiedByKey && consistentReadsRequested())
    throw new Error(`a strongly consistent read of index ${query.index}: indexes are eventually consistent`);
  const { pk, sk } = query.index ? indexKeyNames(query.index) : { pk: 'pk', sk: 'sk' };
  const names: Record<string, string> = { '#pk': pk };
  const values: Record<string, unknown> = { ':pk': query.partition };
  let condition = '#pk = :pk';
  if (query.skPrefix !== undefined) {
    names['#sk'] = sk;
    values[':prefix'] = query.skPrefix;
    condition += ' AND begins_with(#sk, :prefix)';
  } else if (query.skFrom !== undefined && query.skTo !== undefined) {
    names['#sk'] = sk;
    [values[':from'], values[':to']] = [query.skFrom, query.skTo];
    condition += ' AND #sk BETWEEN :from AND :to';
  } else if (query.skFrom !== undefined || query.skTo !== undefined) {
    names['#sk'] = sk;
    values[':bound'] = query.skFrom ?? query.skTo;
    condition += query.skFrom !== undefined ? ' AND #sk >= :bound' : ' AND #sk <= :bound';
  }
  const projection = query.attributes?.map((a, i) => {
    names[`#a${i}`] = a;
    return `#a${i}`;
  });
  return db.send(
    new QueryCommand({
      TableName: config.tableName,
      IndexName: query.index,
      KeyConditionExpression: condition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ScanIndexForward: query.forward !== false,
      Limit: limit,
      ProjectionExpression: projection?.join(', '),
      ExclusiveStartKey: startKey,
      ConsistentRead: query.consistent,
    }),
  );
}

const firstCallReadId = (query: PartitionQuery) => `first call of ${queryReadId(query)}`;

/** How queryItems reads: its first call from the request's prefetch; how many a walk still wants. */
export interface ReadOptions {
  /** The first call's result is taken from the request's prefetch of it (prefetchFirstCall) when there is one. */
  prefetchedFirstCall?: boolean;
  /**
   * A `growing` walk that knows how far it must go: how many more items it wants after the `read` so far (undefined:
   * it cannot tell yet). Each further call asks for that many rather than 4 times as many as the last: a deep page
   * reads in as few calls as the 1 MB pages allow, and no further than it needs.
   */
  wanted?: (read: number) => number | undefined;
}

/**
 * The items of a partition in sort-key order, read lazily one DynamoDB page at a time (ReadOptions: the first call
 * prefetched, the calls sized by what a walk still wants).
 */
export async function* queryItems(
  query: PartitionQuery,
  { prefetchedFirstCall = false, wanted }: ReadOptions = {},
): AsyncGenerator<Item> {
  let startKey: Item | undefined;
  let limit = query.pageLimit;
  let read = 0;
  let prefetched = prefetchedFirstCall ? takePrefetched<QueryOutput>(firstCallReadId(query)) : undefined;
  do {
    const out = await (prefetched ?? queryCall(query, startKey, limit));
    prefetched = undefined;
    for (const item of out.Items ?? []) yield item;
    startKey = out.LastEvaluatedKey;
    // A call cut short by DynamoDB's 1 MB page asks next for what it lacked; a full one for 4 times as many (or, for
    // a walk that can tell, for what it still wants).
    const count = out.Count ?? 0;
    read += count;
    const want = startKey ? wanted?.(read) : undefined;
    if (query.growing && limit)
      limit = want ? Math.max(1, want) : count < limit ? limit - count : Math.max(limit, Math.min(1000, limit * 4));
  } while (startKey);
}

/**
 * The first call of `query` alone (the request's prefetch of it when there is one): its items, and the key the next
 * call would start from (none: the partition or range ends there).
 */
export async function firstCall(
  query: PartitionQuery,
  { prefetchedFirstCall = false } = {},
): Promise<{ items: Item[]; lastKey?: Item }> {
  const prefetched = prefetchedFirstCall ? takePrefetched<QueryOutput>(firstCallReadId(query)) : undefined;
  const out = await (prefetched ?? queryCall(query, undefined, query.pageLimit));
  return { items: out.Items ?? [], lastKey: out.LastEvaluatedKey };
}

/** Sort keys compared as DynamoDB orders them: by their UTF-8 bytes. */
export const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/**
 * The items of `query`'s sort-key range (skFrom..skTo, ascending; a bound left out: the partition's end) exactly as
 * queryItems gives them, read as consecutive segments cut at `splits` (sort keys within the range), every segment's
 * pages at once rather than one 1 MB page after another: a big range (a scan's 10,000 URIs, 4 MB) in one round trip
 * or two. A segment is BETWEEN its split and the next; an item whose key equals the next split is that segment's,
 * not this one's. Yields each segment's items once it and those before it are read.
 */
export async function* segmentedItems(query: PartitionQuery, splits: string[]): AsyncGenerator<Item> {
  for (const segment of segmentReads(query, splits)) yield* await segment;
}

/**
 * segmentedItems' items, all of them in one array once every segment is read: for a reader of the whole range, which
 * so takes no async step per item (each costs promises, and a request's async context tracks every promise).
 */
export async function segmentedList(query: PartitionQuery, splits: string[]): Promise<Item[]> {
  return (await Promise.all(segmentReads(query, splits))).flat();
}

/** Items per segment a remembered range is cut into (rememberedSegmentsList), and segments at most. */
const REMEMBERED_SEGMENT_ITEMS = 250;
const REMEMBERED_SEGMENTS_MAX = 16;
/** Ranges whose cuts the process remembers at most: the least recently read is forgotten first. */
const REMEMBERED_RANGES_MAX = 1_000;
const rememberedSplits = new Map<string, string[]>();

/**
 * Every item of `query`'s range, ascending, exactly as queryAll gives them (segmentedList), read as segments cut
 * where this process's last read of the same range found every REMEMBERED_SEGMENT_ITEMS-th item (at most
 * REMEMBERED_SEGMENTS_MAX segments): a range read again, as a report paged through reads its organization's
 * environments once per page on one warm Lambda instance, takes one round trip rather than one per 1 MB page. A first
 * read, or a forgotten one, reads page after page as queryAll does. Any cut gives the same items (items written or
 * deleted since only move where the segments end), so a remembered one is only a guess at a fast one.
 */
export async function rememberedSegmentsList(query: PartitionQuery): Promise<Item[]> {
  const id = queryReadId(query);
  const items = await segmentedList(query, rememberedSplits.get(id) ?? []);
  const { sk } = query.index ? indexKeyNames(query.index) : { sk: 'sk' };
  const every = Math.max(REMEMBERED_SEGMENT_ITEMS, Math.ceil(items.length / REMEMBERED_SEGMENTS_MAX));
  rememberedSplits.delete(id);
  rememberedSplits.set(
    id,
    items.filter((_, i) => i > 0 && i % every === 0).map((item) => item[sk] as string),
  );
  if (rememberedSplits.size > REMEMBERED_RANGES_MAX) rememberedSplits.delete(rememberedSplits.keys().next().value!);
  return items;
}

/** The reads of segmentedItems' segments, all started, in order. */
function segmentReads(query: PartitionQuery, splits: string[]): Promise<Item[]>[] {
  if (query.forward === false || query.pageLimit !== undefined || query.skPrefix !== undefined)
    throw new Error('segmentedItems reads a whole range in ascending order');
  const { skFrom, skTo } = query;
  const inside = [...new Set(splits)]
    .filter((s) => (skFrom === undefined || byUtf8(s, skFrom) > 0) && (skTo === undefined || byUtf8(s, skTo) < 0))
    .sort(byUtf8);
  const bounds = [skFrom, ...inside, skTo];
  const { sk } = query.index ? indexKeyNames(query.index) : { sk: 'sk' };
  return bounds.slice(1).map((to, i) => {
    const last = i === bounds.length - 2;
    const read = pagesOf({ ...query, skFrom: bounds[i], skTo: to }).then((items) =>
      last ? items : items.filter((item) => item[sk] !== to),
    );
    read.catch(() => undefined); // awaited in order by the caller
    return read;
  });
}

/** Every item of `query` (no page limit), its pages read one after another into one array. */
async function pagesOf(query: PartitionQuery): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const out = await queryCall(query, startKey, undefined);
    for (const item of out.Items ?? []) items.push(item);
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** The smallest sort key above `key` (a range that starts after an item already read does not read it again). */
export const justAfter = (key: string) => `${key}\u0000`;

/** The id (8 lower-case hex digits) at `fraction` of the id space (0 to 1), for a range of random ids. */
export const idAt = (fraction: number) =>
  Math.min(2 ** 32 - 1, Math.max(0, Math.floor(fraction * 2 ** 32)))
    .toString(16)
    .padStart(8, '0');

/** Where an id (random, lower-case hex) falls in the id space, from 0 to 1 (undefined: not such an id). */
export const idPlace = (id: string | undefined) =>
  id && /^[0-9a-f]{8}/.test(id) ? parseInt(id.slice(0, 8), 16) / 2 ** 32 : undefined;

/**
 * Where to cut a range of random ids (UUIDs, lower-case hex: evenly spread) from `after` to `before` (none: the id
 * space's ends) into `count` segments of about the same number of ids (segmentedItems' splits).
 */
export function idSplits(count: number, after?: string, before?: string): string[] {
  const from = idPlace(after) ?? 0;
  const to = idPlace(before) ?? 1;
  return Array.from({ length: Math.max(0, count - 1) }, (_, i) => idAt(from + ((to - from) * (i + 1)) / count));
}

/**
 * The items of `query`'s sort-key range in order, at most about `limit` of them (Query calls asking for what is left),
 * and `readTo`: the sort key the read stopped at when the range held more (undefined: read to its end). For a read
 * whose cost must stay bounded whatever the range holds (rangeOrKeys).
 */
export async function rangeUpTo(
  query: PartitionQuery & { skFrom: string; skTo: string },
  limit: number,
): Promise<{ items: Item[]; readTo?: string }> {
  const items: Item[] = [];
  // Each call asks for what is left (a call cut at 1 MB: the rest); DynamoDB answers a call it stopped at its Limit
  // with where it stopped, as the last item read.
  const rest = (read: number) => limit - read;
  for await (const item of queryItems({ ...query, pageLimit: Math.max(1, limit), growing: true }, { wanted: rest })) {
    items.push(item);
    if (items.length >= limit) return { items, readTo: item.sk as string };
  }
  return { items };
}

/**
 * The items of these keys (one partition; as batchGet answers them, order not kept): the sort-key range from their
 * least key to their greatest read by Query, at most `limit` items (rangeUpTo), then the keys beyond what it reached
 * by key. A Query is charged by the summed size of the items it reads (4 KB units, halved when eventually
 * consistent), a BatchGetItem at least half a unit per key, present or absent: when the keys are most of their range,
 * or most of them name no item, the range costs a fraction of the keys. `limit` bounds its cost whatever it holds.
 */
export async function rangeOrKeys(
  itemKeys: { pk: string; sk: string }[],
  limit: number,
  attributes?: string[],
): Promise<Item[]> {
  if (itemKeys.length === 0) return [];
  const wanted = new Set(itemKeys.map((key) => key.sk));
  const sorted = [...wanted].sort(byUtf8);
  const partition = itemKeys[0]!.pk;
  if (itemKeys.some((key) => key.pk !== partition)) throw new Error('rangeOrKeys reads keys of one partition');
  const projection = attributes && [...new Set([...attributes, 'sk'])];
  const { items, readTo } = await rangeUpTo(
    { partition, skFrom: sorted[0]!, skTo: sorted.at(-1)!, attributes: projection },
    limit,
  );
  const found = items.filter((item) => wanted.has(item.sk as string));
  if (attributes && !attributes.includes('sk')) for (const item of found) delete item.sk;
  if (readTo === undefined) return found;
  const rest = sorted.filter((sk) => byUtf8(sk, readTo) > 0).map((sk) => ({ pk: partition, sk }));
  return [...found, ...(await batchGet(rest, attributes))];
}

/**
 * Runs the first call of `query` now (a list's walk, beside the request's authorization reads); the request's later
 * queryItems of the same query with `prefetchedFirstCall` takes its result and reads on from there.
 */
export function prefetchFirstCall(query: PartitionQuery): void {
  registerPrefetch(firstCallReadId(query), queryCall(query, undefined, query.pageLimit));
}

/**
 * One item of the main table by key (a prefetched read of it when the request has one); `consistent`: a strongly
 * consistent read (a prefetched one is, when its read asked for it: prefetchItems).
 */
export async function getItem(key: Item, { consistent = false } = {}): Promise<Item | undefined> {
  const prefetched = takePrefetched<Item | undefined>(itemReadId(key));
  if (prefetched) return prefetched;
  const out = await db.send(new GetCommand({ TableName: config.tableName, Key: key, ConsistentRead: consistent }));
  return out.Item;
}

/**
 * Reads many items of the main table by key (100 per call, retrying unprocessed keys), optionally only some
 * attributes, strongly consistent when `consistent` (never prefetched then); whole items already prefetched for the
 * request are taken from there. Order is not kept. `concurrency`: calls in flight (a reader that waits on all of a few
 * hundred keys sends them at once).
 */
export async function batchGet(
  itemKeys: Item[],
  attributes?: string[],
  consistent = false,
  concurrency = 4,
): Promise<Record<string, unknown>[]> {
  const prefetched =
    attributes || consistent ? [] : itemKeys.map((key) => takePrefetched<Item | undefined>(itemReadId(key)));
  const rest = attributes || consistent ? itemKeys : itemKeys.filter((_, i) => !prefetched[i]);
  const [early, read] = await Promise.all([
    Promise.all(prefetched),
    readBatch(rest, attributes, consistent, concurrency),
  ]);
  return [...(early.filter(Boolean) as Item[]), ...read];
}

async function readBatch(
  itemKeys: Item[],
  attributes?: string[],
  consistent = false,
  concurrency = 4,
): Promise<Item[]> {
  const items: Record<string, unknown>[] = [];
  const projection = attributes && {
    ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a])),
  };
  const chunks: Item[][] = [];
  for (let i = 0; i < itemKeys.length; i += 100) chunks.push(itemKeys.slice(i, i + 100));
  // Up to `concurrency` calls in flight (4 by default: a page of 1,000 items is 10 calls).
  const worker = async () => {
    for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
      let request: Record<string, { Keys: Item[] }> | undefined = {
        [config.tableName]: { Keys: chunk, ...projection, ...(consistent ? { ConsistentRead: true } : {}) },
      };
      while (request && Object.keys(request).length > 0) {
        const out = await db.send(new BatchGetCommand({ RequestItems: request }));
        items.push(...(out.Responses?.[config.tableName] ?? []));
        request = out.UnprocessedKeys as typeof request;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, chunks.length) }, worker));
  return items;
}

/** Issues one BatchGetItem for these items now; the request's later getItem/batchGet of each takes its result. */
export function prefetchItems(
  itemKeys: Item[],
  { consistent = [], rememberMs = 0 }: { consistent?: Item[]; rememberMs?: number } = {},
): void {
  const strong = new Set(consistent.map(itemReadId));
  const unique = [...new Map([...itemKeys, ...consistent].map((key) => [itemReadId(key), key])).values()];
  // Items the operation lets this process answer from its memory of an earlier read (never a consistent one).
  const now = Date.now();
  const fresh = (id: string) => {
    const known = rememberMs && !strong.has(id) ? remembered.get(id) : undefined;
    return known && now - known.at < rememberMs ? known : undefined;
  };
  const toRead = unique.filter((key) => !fresh(itemReadId(key)));
  const read = toRead.length ? readBatch(toRead, undefined, strong.size > 0) : Promise.resolve([]);
  for (const key of unique) {
    const id = itemReadId(key);
    const known = fresh(id);
    const item = known ? Promise.resolve(known.item) : read.then((items) => items.find((i) => itemReadId(i) === id));
    if (rememberMs && !known && !strong.has(id))
      void item.then(
        (found) => found && rememberItem(found),
        () => {},
      );
    registerPrefetch(id, item);
  }
}

/**
 * Items read by key that a prefetch may answer from memory (prefetchItems' rememberMs; the poll of an idle agent:
 * shared/perch/agents.ts), with when they were read. Only an operation that asks takes them, for as long as it
 * says; the oldest go beyond REMEMBERED_ITEMS.
 */
const remembered = new Map<string, { item: Item; at: number }>();
const REMEMBERED_ITEMS = 30_000;

/** Remembers `item` as read now (its pk and sk name it), for prefetchItems' rememberMs. */
export function rememberItem(item: Item, at = Date.now()): void {
  const id = itemReadId(item);
  remembered.delete(id);
  remembered.set(id, { item, at });
  if (remembered.size > REMEMBERED_ITEMS) remembered.delete(remembered.keys().next().value!);
}

// What the pipeline's prefetch issues (shared/http/prefetch.ts), and an operation's own reads (its route's `prefetch`).
/** Reads to issue together: items of the main table (one BatchGetItem) and queries. */
export interface Reads {
  items?: Record<string, unknown>[];
  queries?: PartitionQuery[];
  /** Queries of which only the first call is made now (queryItems' prefetchedFirstCall takes it). */
  firstCalls?: PartitionQuery[];
  /** Items read strongly consistent, never from memory: then every item of the BatchGetItem is. */
  consistentItems?: Record<string, unknown>[];
  /**
   * How long the request may take the other items (its path's too) from this process's memory of an earlier read
   * (prefetchItems): only for an operation whose docs state that bound.
   */
  rememberMs?: number;
}

export interface PrefetchInput {
  /** The bearer token's user (absent for login). */
  caller?: Caller;
  /** Path parameters that have the shape of ids (UUIDs), undecided otherwise: validation comes later. */
  ids: Record<string, string>;
  headers: Record<string, string | undefined>;
  /** The query string's parameters as sent, undecided: validation comes later. */
  query: Record<string, string | undefined>;
}

export type OperationReads = (input: PrefetchInput) => Reads;

/** Runs the query now; the request's later queryAll of the same query takes its result. */
export function prefetchQuery(query: PartitionQuery): void {
  registerPrefetch(queryReadId(query), readQuery(query));
}

export async function queryAll(query: PartitionQuery): Promise<Item[]> {
  return (await takePrefetched<Item[]>(queryReadId(query))) ?? readQuery(query);
}

const readQuery = (query: PartitionQuery): Promise<Item[]> => collect(queryItems(query));

/** Every item of a stream, in its order. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/**
 * A DynamoDB call cut by `signal`: the SDK gets the signal (it stops the call on the wire), and the caller is freed
 * the moment it aborts whatever the call is doing then (a middleware, a retry's wait, a socket that answers late),
 * with the signal's reason. An already-aborted signal sends nothing.
 */
export async function untilAborted<T>(
  signal: AbortSignal | undefined,
  call: (abortSignal?: AbortSignal) => Promise<T>,
): Promise<T> {
  if (!signal) return call();
  signal.throwIfAborted();
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([call(signal), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

type WriteRequest = { DeleteRequest: { Key: Item } } | { PutRequest: { Item: Item } };

/**
 * BatchWriteItem calls of 25 requests, `concurrency` at a time, retrying unprocessed requests with a short backoff.
 * Not atomic: for cascades and for bulk data whose visibility a separate atomic write decides. A failed call stops
 * the others from starting and is thrown once those in flight have ended, so that a caller removing what it wrote
 * after the failure finds all of it; only a `signal` abort frees the caller at once (its calls in flight may land).
 */
async function batchWrite(
  requests: WriteRequest[],
  concurrency: number,
  signal?: AbortSignal,
  beforeCall?: (written: number) => void,
): Promise<void> {
  const chunks: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += 25) chunks.push(requests.slice(i, i + 25));
  let failed = false;
  let written = 0;
  const worker = async () => {
    for (let chunk = chunks.shift(); chunk && !failed; chunk = chunks.shift()) {
      // A throw here stops the write as a failed call does (the calls in flight end first).
      beforeCall?.(written);
      let pending: WriteRequest[] = chunk;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0)
          await untilAborted(
            signal,
            () => new Promise((resolve) => setTimeout(resolve, Math.min(1000, 10 * 2 ** attempt))),
          );
        const out = await untilAborted(signal, (abortSignal) =>
          db.send(new BatchWriteCommand({ RequestItems: { [config.tableName]: pending } }), { abortSignal }),
        );
        pending = (out.UnprocessedItems?.[config.tableName] ?? []) as WriteRequest[];
      }
      written += chunk.length;
    }
  };
  const workers = Array.from({ length: Math.min(concurrency, chunks.length) }, () =>
    worker().catch((error: unknown) => {
      failed = true;
      throw error;
    }),
  );
  const failure = (await Promise.allSettled(workers)).find((w) => w.status === 'rejected');
  if (failure) throw failure.reason;
}

/** Runs `work` on every item, at most `limit` at a time. */
export async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** `work`'s results for every item, in the items' order, at most `limit` at a time. */
export async function mapInParallel<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  await inParallel(
    items.map((item, i) => ({ item, i })),
    limit,
    async ({ item, i }) => {
      results[i] = await work(item);
    },
  );
  return results;
}

/** Deletes items by key (not atomic: for cascades), `concurrency` BatchWriteItem calls in flight. */
export async function batchDelete(
  itemKeys: { pk: unknown; sk: unknown }[],
  concurrency = 1,
  signal?: AbortSignal,
): Promise<void> {
  await batchWrite(
    itemKeys.map(({ pk, sk }) => ({ DeleteRequest: { Key: { pk, sk } } })),
    concurrency,
    signal,
  );
}

/**
 * Puts items, several BatchWriteItem calls in flight (not atomic); `signal` cuts the calls in flight and the rest.
 * `beforeCall` runs before each call with the number of items written so far: its throw stops the write.
 */
export async function batchPut(
  items: Item[],
  concurrency = 8,
  signal?: AbortSignal,
  beforeCall?: (written: number) => void,
): Promise<void> {
  await batchWrite(
    items.map((Item) => ({ PutRequest: { Item } })),
    concurrency,
    signal,
    beforeCall,
  );
}

/**
 * Deletes every item a partition query finds (except those `spare` keeps), each with the item outside the partition
 * it names in `ownedKey` (e.g. a scan's lookup by id), which goes first so that a retry still finds it. Repeats
 * until nothing is left: for cascades, idempotent, so an interrupted one resumes.
 */
export async function deleteFound(
  query: PartitionQuery,
  spare: (item: Item) => boolean = () => false,
  concurrency = 1,
  signal?: AbortSignal,
): Promise<void> {
  for (;;) {
    const found = (
      await untilAborted(signal, () => queryAll({ ...query, attributes: ['pk', 'sk', 'ownedKey'], pageLimit: 1000 }))
    ).filter((item) => !spare(item));
    if (found.length === 0) return;
    await batchDelete(
      found.flatMap((item) => (item.ownedKey ? [item.ownedKey as { pk: string; sk: string }] : [])),
      concurrency,
      signal,
    );
    await batchDelete(found as { pk: string; sk: string }[], concurrency, signal);
  }
}
