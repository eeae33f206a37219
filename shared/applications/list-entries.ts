import { keys, trigrams } from '../db/keys.ts';
import {
  collect,
  byUtf8,
  firstCall,
  justAfter,
  idAt,
  idPlace,
  idSplits,
  prefixRange,
  queryAll,
  queryItems,
  segmentedItems,
  type PartitionQuery,
  type ReadOptions,
  type Reads,
} from '../db/query.ts';
import { indexKeyNames, type MainIndex } from '../db/tables.ts';
import type { Membership } from '../context/caller.ts';
import { fromItem } from '../db/items.ts';
import {
  BUCKET_HEALTH_FIELDS,
  type BucketHealth,
  ApplicationRecord,
  ApplicationStatus,
  ApplicationType,
  type ListEntry,
  type EnvironmentListOrder,
  type NameMatch,
  type Bucket,
  type ApplicationListOrder,
  type ListScope,
  type CountedScope,
  visibleTeams,
} from './model.ts';

// The compact list indexes (docs/DATA-MODEL.md, Reads): entries of a few hundred bytes carrying what the
// application and environment lists filter and sort on (shared/db/tables.ts LIST_ENTRY_ATTRIBUTES). A list orders,
// filters, counts and skips on them, and reads whole items only for the page it returns.

type EntryQuery = Omit<PartitionQuery, 'index' | 'growing' | 'consistent'>;

/** The Query of an index partition's entries (`entries` reads it; a list's prefetch names its first call). */
function entryQuery(index: MainIndex, query: EntryQuery): PartitionQuery {
  const attributes = query.attributes && [...query.attributes, indexKeyNames(index).sk];
  // A walk starts with what its page needs and reads more per call as filters or team rules leave entries out.
  return { index, ...query, attributes, growing: true };
}

/** An index item as a list entry: its attributes and its sort key under the index's name for it. */
const listEntryOf = (index: MainIndex) => {
  const sk = indexKeyNames(index).sk;
  return (item: Record<string, unknown>): ListEntry => ({
    ...(item as Omit<ListEntry, 'sortKey'>),
    sortKey: item[sk] as string,
  });
};

/** Entries of one index partition; `attributes` narrows what each carries (whole-organization counts and scans). */
async function* entries(index: MainIndex, query: EntryQuery, options: ReadOptions = {}) {
  const entry = listEntryOf(index);
  for await (const item of queryItems(entryQuery(index, query), options)) yield entry(item);
}

/** Entries per segment of an id index read side by side (segmentedEntries): about 230 KB, well under a 1 MB page. */
const ENTRIES_PER_SEGMENT = 600;

/**
 * Every entry of an index partition whose sort key is a random id (about `expected` of them), in id order, read as
 * segments of about ENTRIES_PER_SEGMENT side by side (db/query.ts segmentedItems): one round trip, where one call
 * after another took one per 1 MB page (and more while the calls grew).
 */
async function segmentedEntries(
  index: MainIndex,
  query: Omit<EntryQuery, 'forward' | 'pageLimit'>,
  expected: number,
): Promise<ListEntry[]> {
  const splits = idSplits(Math.min(100, Math.ceil(expected / ENTRIES_PER_SEGMENT)));
  const items = await collect(segmentedItems(entryQuery(index, query), splits));
  return items.map(listEntryOf(index));
}

const ENVIRONMENT_ORDERS: Record<EnvironmentListOrder, (orgId: string) => { index: MainIndex; partition: string }> = {
  name: (orgId) => ({ index: 'gsi2c', partition: keys.environmentsOfOrgByName(orgId).gsi2pk }),
  scanDate: (orgId) => ({ index: 'gsi3c', partition: keys.environmentsOfOrgByScanDate(orgId).gsi3pk }),
  id: (orgId) => ({ index: 'gsi4', partition: keys.environmentsOfOrgById(orgId).gsi4pk }),
  duration: (orgId) => ({ index: 'gsi5', partition: keys.environmentsOfOrgByDuration(orgId).gsi5pk }),
  findings: (orgId) => ({ index: 'gsi6', partition: keys.environmentsOfOrgByFindings(orgId).gsi6pk }),
};

/** The Query of the organization's live environments in one of the index orders (environmentEntries reads it). */
export function environmentEntriesQuery(
  orgId: string,
  order: EnvironmentListOrder,
  forward: boolean,
  pageLimit?: number,
  attributes?: string[],
): PartitionQuery {
  const { index, partition } = ENVIRONMENT_ORDERS[order](orgId);
  return entryQuery(index, { partition, forward, pageLimit, attributes });
}

/**
 * The organization's live environments in one of the index orders, read lazily `pageLimit` entries per call;
 * `prefetchedFirstCall`: the first call from the request's prefetch of environmentEntriesQuery's first call.
 */
export function environmentEntries(
  orgId: string,
  order: EnvironmentListOrder,
  forward: boolean,
  pageLimit?: number,
  attributes?: string[],
  options: ReadOptions = {},
): AsyncGenerator<ListEntry> {
  const { index, partition } = ENVIRONMENT_ORDERS[order](orgId);
  return entries(index, { partition, forward, pageLimit, attributes }, options);
}

/** How far a walk of the id index surely goes (list-plan.ts idWalkReach). */
export interface IdWalkReach {
  /** The index's entries (the organization's environments). */
  entries: number;
  /** The share of the id space, from the walk's start, that the walk surely passes. */
  surely: number;
  /** Entries to ask for beyond it: where the walk's page most likely ends, with room to spare. */
  tail: number;
}

/**
 * The organization's environments in id order, walked (environmentEntries) for a page whose reach is known (`reach`):
 * after the first call (the request's prefetch of it), the ids the walk surely passes are read as segments side by
 * side (db/query.ts segmentedItems), beside the call that reads on from there; a deep page in about one round trip
 * after the first rather than one per 1 MB page. Without a reach, or when the first call went past it, call after
 * call (ReadOptions `wanted`).
 */
export async function* environmentIdWalk(
  orgId: string,
  forward: boolean,
  pageLimit: number,
  reach: IdWalkReach | undefined,
  options: ReadOptions = {},
): AsyncGenerator<ListEntry> {
  const { index, partition } = ENVIRONMENT_ORDERS.id(orgId);
  const sk = indexKeyNames(index).sk;
  const entry = listEntryOf(index);
  const first = await firstCall(entryQuery(index, { partition, forward, pageLimit }), options);
  yield* first.items.map(entry);
  if (!first.lastKey) return;
  const after = first.lastKey[sk] as string;
  let read = first.items.length;
  const wanted = options.wanted && ((n: number) => options.wanted!(n + read));
  // Ascending, a range starts just after the last key read; descending, it ends at it (read again, left out).
  const from = (key: string) => (forward ? { skFrom: justAfter(key) } : { skTo: key });
  const safeKey = reach && idAt(forward ? reach.surely : 1 - reach.surely);
  if (!reach || !safeKey || (forward ? byUtf8(safeKey, after) <= 0 : byUtf8(safeKey, after) >= 0)) {
    const rest = entries(
      index,
      { partition, forward, pageLimit: wanted?.(0) ?? grown(pageLimit, first.items.length), ...from(after) },
      { wanted },
    );
    for await (const e of rest) if (e.sortKey !== after) yield e;
    return;
  }
  // The call past the surely passed ids starts now, beside their segments.
  const beyond = forward ? { skFrom: safeKey } : { skTo: safeKey }; // with safeKey: the segments leave it out
  const tail = entries(index, { partition, forward, pageLimit: reach.tail, ...beyond }, { wanted });
  const tailFirst = tail.next();
  tailFirst.catch(() => undefined); // awaited below
  const [lo, hi] = forward ? [justAfter(after), safeKey] : [safeKey, after];
  const share = Math.abs((idPlace(hi) ?? 1) - (idPlace(lo) ?? 0));
  const segments = Math.min(100, Math.ceil((reach.entries * share) / ENTRIES_PER_SEGMENT));
  const range = entryQuery(index, { partition, skFrom: lo, skTo: hi });
  const passed = (await collect(segmentedItems(range, idSplits(segments, lo, hi)))).filter(
    (item) => item[sk] !== after && item[sk] !== safeKey,
  );
  if (!forward) passed.reverse();
  read += passed.length;
  yield* passed.map(entry);
  for (let next = await tailFirst; !next.done; next = await tail.next()) yield next.value;
}

/**
 * How far a fenced walk surely goes and where its page most likely ends (places of the walk, 1-based; a fence's
 * `at` is its place).
 */
export interface FenceReach {
  surely: number;
  /** undefined: the walk reads to the partition's end. */
  end?: number;
}

/**
 * The entries of `query`'s partition in its order (a walk from its start, `forward` or not) as queryItems gives them,
 * read with the partition's learned fences (list-fences.ts): after the first call (the request's prefetch of it), the
 * ranges between the fences the walk surely passes (`reach`) are read side by side as segments (db/query.ts
 * segmentedItems), beside the call that reads on from the last of them; a deep page in about one round trip after
 * the first. Every entry is read, so a stale fence costs only a segment another call, never an entry. Without a
 * fence past the first call and within the reach, call after call (ReadOptions `wanted`).
 */
export async function* fencedWalk(
  query: PartitionQuery,
  fences: { key: string; at: number }[],
  reach: FenceReach,
  options: ReadOptions = {},
): AsyncGenerator<ListEntry> {
  const { index, partition, attributes } = query;
  const sk = indexKeyNames(index!).sk;
  const entry = listEntryOf(index!);
  const forward = query.forward !== false;
  const first = await firstCall(query, options);
  yield* first.items.map(entry);
  if (!first.lastKey) return;
  const after = first.lastKey[sk] as string;
  let read = first.items.length;
  const wanted = options.wanted && ((n: number) => options.wanted!(n + read));
  const past = (key: string, than: string) => (forward ? byUtf8(key, than) > 0 : byUtf8(key, than) < 0);
  const usable: { key: string; at: number }[] = [];
  for (const { key, at } of fences) {
    if (at > reach.surely) break;
    if (past(key, usable.at(-1)?.key ?? after)) usable.push({ key, at });
  }
  // Ascending, a range starts just after the last key read; descending, it ends at it (read again, left out).
  const from = (key: string) => (forward ? { skFrom: justAfter(key) } : { skTo: key });
  const sized = (limit: number | undefined) => (query.pageLimit === undefined ? undefined : limit);
  const safe = usable.at(-1);
  if (!safe) {
    const limit = sized(wanted?.(0) ?? grown(query.pageLimit ?? 1000, read));
    const rest = queryItems({ ...query, pageLimit: limit, ...from(after) }, { wanted });
    for await (const item of rest) if (item[sk] !== after) yield entry(item);
    return;
  }
  // The call past the last fence used starts now, beside the segments before it.
  const beyond = forward ? { skFrom: safe.key } : { skTo: safe.key }; // with the fence: the segments leave it out
  const tailLimit = reach.end === undefined ? undefined : sized(Math.max(1, reach.end - safe.at + 1));
  const tail = queryItems({ ...query, pageLimit: tailLimit, ...beyond }, { wanted });
  const tailFirst = tail.next();
  tailFirst.catch(() => undefined); // awaited below
  const [lo, hi] = forward ? [justAfter(after), safe.key] : [safe.key, after];
  const range = { index, partition, attributes, skFrom: lo, skTo: hi };
  const splits = usable.slice(0, -1).map((f) => f.key);
  const passed = (await collect(segmentedItems(range, splits))).filter(
    (item) => item[sk] !== after && item[sk] !== safe.key,
  );
  if (!forward) passed.reverse();
  read += passed.length;
  yield* passed.map(entry);
  for (let next = await tailFirst; !next.done; next = await tail.next()) yield entry(next.value);
}

/**
 * fencedWalk for a walk whose first call the request could not prefetch (a `query`'s walk: its reach is known only
 * once the trigram index's names are): the ranges from the partition's start to the last fence the walk surely passes
 * (`reach`) are read side by side as segments (db/query.ts segmentedItems), beside the call that reads on from that
 * fence; a deep page in one round trip rather than one per 1 MB page. Every entry is read, in order, so a stale fence
 * costs only a segment another call. Without a fence within the reach, call after call from the start (queryItems).
 */
export async function* fencedWalkFromStart(
  query: PartitionQuery,
  fences: { key: string; at: number }[],
  reach: FenceReach,
  options: ReadOptions = {},
): AsyncGenerator<ListEntry> {
  const { index, partition, attributes } = query;
  const sk = indexKeyNames(index!).sk;
  const entry = listEntryOf(index!);
  const forward = query.forward !== false;
  const usable: { key: string; at: number }[] = [];
  for (const fence of fences) {
    if (fence.at > reach.surely) break;
    const last = usable.at(-1)?.key;
    if (last === undefined || (forward ? byUtf8(fence.key, last) > 0 : byUtf8(fence.key, last) < 0)) usable.push(fence);
  }
  const safe = usable.at(-1);
  if (!safe) {
    for await (const item of queryItems(query, options)) yield entry(item);
    return;
  }
  let read = 0;
  const wanted = options.wanted && ((n: number) => options.wanted!(n + read));
  // The call past the last fence used starts now, beside the segments before it (which leave the fence out).
  const beyond = forward ? { skFrom: safe.key } : { skTo: safe.key };
  const sized = reach.end === undefined || query.pageLimit === undefined ? undefined : reach.end - safe.at + 1;
  const tail = queryItems({ ...query, pageLimit: sized && Math.max(1, sized), ...beyond }, { wanted });
  const tailFirst = tail.next();
  tailFirst.catch(() => undefined); // awaited below
  const range = { index, partition, attributes, ...(forward ? { skTo: safe.key } : { skFrom: safe.key }) };
  const splits = usable.slice(0, -1).map((f) => f.key);
  const passed = (await collect(segmentedItems(range, splits))).filter((item) => item[sk] !== safe.key);
  if (!forward) passed.reverse();
  read += passed.length;
  yield* passed.map(entry);
  for (let next = await tailFirst; !next.done; next = await tail.next()) yield entry(next.value);
}

/** The next call's size after a call of `limit` that gave `count` (queryItems' growing calls). */
const grown = (limit: number, count: number) =>
  count < limit ? limit - count : Math.max(limit, Math.min(1000, limit * 4));

/**
 * Every live environment entry of the organization (about `expected`: its counters), in id order: the id index read
 * as segments side by side (segmentedEntries).
 */
export function allEnvironmentEntries(orgId: string, expected: number): Promise<ListEntry[]> {
  const { index, partition } = ENVIRONMENT_ORDERS.id(orgId);
  return segmentedEntries(index, { partition }, expected);
}

/**
 * Every live application entry of one bucket (about `bucket.applications`: its counter), in id order: the bucket's
 * id index read as segments side by side (segmentedEntries).
 */
export function bucketApplicationEntries(
  orgId: string,
  bucket: Pick<Bucket, 'applicationType' | 'teamId' | 'applications'>,
  attributes?: string[],
): Promise<ListEntry[]> {
  const partition = keys.applicationsOfBucketById(orgId, bucket.applicationType, bucket.teamId).gsi6pk;
  return segmentedEntries('gsi6', { partition, attributes }, bucket.applications);
}

/** The Query of environmentEntriesNamed (a list's prefetch names its first call). */
export function environmentEntriesNamedQuery(orgId: string, name: string, pageLimit = 1000): PartitionQuery {
  const { gsi2pk, gsi2skPrefix } = keys.environmentsOfOrgNamed(orgId, name);
  return entryQuery('gsi2c', { partition: gsi2pk, skPrefix: gsi2skPrefix, pageLimit });
}

/**
 * Environments named `name` (case-insensitive): a prefix of the name index, its first call from the request's
 * prefetch of it (environmentEntriesNamedQuery) when there is one, the rest, when the first call did not hold it all,
 * as segments side by side (restOfPrefix); in name order. `firstLimit`: the first call's (the prefetch's) size.
 */
export async function environmentEntriesNamed(orgId: string, name: string, firstLimit = 1000): Promise<ListEntry[]> {
  const query = environmentEntriesNamedQuery(orgId, name, firstLimit);
  const first = await firstCall(query, { prefetchedFirstCall: true });
  const rest = first.lastKey ? await restOfPrefix(query, first.lastKey, first.items.length) : [];
  return [...first.items, ...rest].map(listEntryOf('gsi2c')).filter((e) => e.name.toLowerCase() === name.toLowerCase());
}

/**
 * The rest of a prefix of a (name, id) index after the key a first call of `read` entries ended at: within one name
 * the ids (random) order it, so where that key's id falls in the id space estimates how many remain, read as
 * segments of about ENTRIES_PER_SEGMENT side by side (a key without such an id: one segment, call after call).
 */
async function restOfPrefix(query: PartitionQuery, lastKey: Record<string, unknown>, read: number) {
  const { sk } = indexKeyNames(query.index!);
  const prefix = query.skPrefix!;
  const after = lastKey[sk] as string;
  const fraction = idFraction(after.slice(prefix.length));
  const segments = fraction ? Math.min(100, Math.ceil((read * (1 - fraction)) / fraction / ENTRIES_PER_SEGMENT)) : 1;
  const splits = idSplits(segments, after.slice(prefix.length)).map((split) => `${prefix}${split}`);
  const { index, partition, attributes } = query;
  const range = { index, partition, attributes, ...prefixRange(prefix), skFrom: justAfter(after) };
  return (await collect(segmentedItems(range, splits))).filter((item) => item[sk] !== after);
}

/**
 * The Query of the environments whose last scan has this status (or NONE), in name order: the whole partition, 1 MB
 * per call (a list's prefetch names its first; environment-list.ts fencedStatusEntries reads it).
 */
export const environmentEntriesWithStatusQuery = (orgId: string, status: string): PartitionQuery =>
  entryQuery('gsi1c', { partition: keys.environmentsOfOrgWithStatus(orgId, status).gsi1pk });

const scannedBetween = (orgId: string, from: number, to: number): EntryQuery => {
  const { gsi3pk, gsi3skFrom, gsi3skTo } = keys.environmentsOfOrgScannedBetween(orgId, from, to);
  return { partition: gsi3pk, skFrom: gsi3skFrom, skTo: gsi3skTo, pageLimit: 1000 };
};

/** The Query environmentEntriesScannedBetween reads (a request's prefetch names its first call). */
export const environmentEntriesScannedBetweenQuery = (orgId: string, from: number, to: number) =>
  entryQuery('gsi3c', scannedBetween(orgId, from, to));

/**
 * Environments whose last scan started from `from` to `to` (ms, inclusive), in that order; `prefetchedFirstCall`:
 * the first call from the request's prefetch of environmentEntriesScannedBetweenQuery's.
 */
export function environmentEntriesScannedBetween(
  orgId: string,
  from: number,
  to: number,
  { prefetchedFirstCall = false } = {},
): Promise<ListEntry[]> {
  return collect(entries('gsi3c', scannedBetween(orgId, from, to), { prefetchedFirstCall }));
}

/** The environments with these ids (unknown ones left out): one exact read of the id index each. */
export async function environmentEntriesByIds(orgId: string, envIds: string[]): Promise<ListEntry[]> {
  const partition = keys.environmentsOfOrgById(orgId).gsi4pk;
  const found = await Promise.all(
    envIds.map((id) => collect(entries('gsi4', { partition, skFrom: id.toLowerCase(), skTo: id.toLowerCase() }))),
  );
  return found.flat();
}

/** At most this many of the text's trigrams are sampled (spread over it): each partition is a superset of the matches. */
const QUERY_TRIGRAMS = 8;
/** Entries of each sampled partition read first: enough to estimate its size within about a seventh. */
const SAMPLE = 50;

/**
 * Where an owner id (a random UUID: uniformly spread) falls in the id space, from 0 to 1; undefined for another id.
 * The n-th smallest of a partition's ids sits at about n / size, which estimates the size from its first entries.
 */
function idFraction(id: unknown): number | undefined {
  const head = typeof id === 'string' && /^[0-9a-f]{8}/i.test(id) ? parseInt(id.slice(0, 8), 16) : NaN;
  return Number.isNaN(head) ? undefined : (head + 1) / 2 ** 32;
}

/**
 * What namesContaining reads first, from the text alone: the first SAMPLE entries of each sampled trigram's partition
 * (up to QUERY_TRIGRAMS, spread over the text) and the unindexed names' partition; undefined under three characters.
 * A list's prefetch issues them beside its authorization (nameSampleReads), namesContaining takes them.
 */
function nameSamples(orgId: string, kind: 'APP' | 'ENV', text: string) {
  const grams = trigrams(text);
  if (grams.length === 0) return undefined;
  const chosen =
    grams.length <= QUERY_TRIGRAMS
      ? grams
      : Array.from(
          { length: QUERY_TRIGRAMS },
          (_, i) => grams[Math.round((i * (grams.length - 1)) / (QUERY_TRIGRAMS - 1))],
        );
  const sample = (gram: string): PartitionQuery => ({
    index: 'gsi7',
    partition: keys.namesWithTrigram(orgId, kind, gram).gsi7pk,
    pageLimit: SAMPLE,
    growing: true,
  });
  return {
    samples: [...new Set(chosen)].map(sample),
    unindexed: { index: 'gsi7', partition: keys.unindexedNames(orgId, kind).gsi7pk } satisfies PartitionQuery,
  };
}

/** namesContaining's first reads (nameSamples) for a list's prefetch: bounded by the text, whatever the organization. */
export function nameSampleReads(orgId: string, kinds: ('APP' | 'ENV')[], text: string): Reads {
  const reads = kinds.flatMap((kind) => nameSamples(orgId, kind, text) ?? []);
  return { firstCalls: reads.flatMap((r) => r.samples), queries: reads.map((r) => r.unindexed) };
}

/**
 * The organization's application (APP) or environment (ENV) names containing `text` (lower-cased), from the trigram
 * index; undefined when the text has fewer than three characters (no trigram selects) or when every trigram's
 * partition has more than `limit` names (a caller then reads its compact entries instead: cheaper for that many).
 * Every name containing the text has each of its trigrams, so the smallest of their partitions holds every match:
 * the first SAMPLE entries of up to QUERY_TRIGRAMS partitions are read side by side, which estimates each one's size
 * (the owner ids sort the partition and are random: the SAMPLE-th id's place in the id space is about SAMPLE / size),
 * and only the smallest is read on; with the unindexed names' partition, that is the candidates, confirmed on their
 * names. Cost: the samples plus the smallest partition (at most `limit`), whatever the organization's size. The
 * samples may come from the request's prefetch (nameSampleReads). Options: `onServed` is called once the samples
 * tell that the names will be given (the smallest partition ends within the limit), before it is read on: what a
 * caller reads only for names can go beside the rest of the partition; it is told about how many there are (the
 * partition's estimate times the share of its sampled names that contain the text; exact but for the unindexed names
 * when the samples hold it all). `keepRead`: a partition estimated within NEAR_LIMIT times the limit (which was read
 * up to the limit and then given up) is read to its end as segments side by side, and its names are given even past
 * the limit: a caller that tells from the matches among them whether they are few (listApplicationsV2) reads those
 * rather than every compact entry.
 */
export async function namesContaining(
  orgId: string,
  kind: 'APP' | 'ENV',
  text: string,
  limit: number,
  { onServed, keepRead = false }: { onServed?: (estimate: number) => void; keepRead?: boolean } = {},
): Promise<NameMatch[] | undefined> {
  const reads = nameSamples(orgId, kind, text);
  if (!reads) return undefined;
  const walks = reads.samples.map((query) => ({
    query,
    iterator: queryItems(query, { prefetchedFirstCall: true })[Symbol.asyncIterator](),
    items: [] as Record<string, unknown>[],
    done: false,
  }));
  const unindexed = queryAll(reads.unindexed);
  const fill = async (walk: (typeof walks)[number], target: number) => {
    while (walk.items.length < target) {
      const next = await walk.iterator.next();
      if (next.done) {
        walk.done = true;
        return;
      }
      walk.items.push(next.value);
    }
  };
  await Promise.all(walks.map((walk) => fill(walk, SAMPLE)));
  // A partition read to its end has its size; another, the estimate from its last sampled id (or, for ids that are
  // not UUIDs, no estimate: read last).
  const size = (walk: (typeof walks)[number]) => {
    if (walk.done) return walk.items.length;
    const fraction = idFraction(walk.items.at(-1)?.gsi7sk);
    return fraction === undefined
      ? Number.MAX_SAFE_INTEGER
      : Math.max(walk.items.length + 1, walk.items.length / fraction);
  };
  const smallest = walks.map((walk) => ({ walk, size: size(walk) })).sort((a, b) => a.size - b.size)[0].walk;
  await Promise.all(walks.filter((w) => w !== smallest && !w.done).map((w) => w.iterator.return?.(undefined)));
  // An estimate well over the limit is not read on (the estimate errs by about a seventh either way); a partition
  // without an estimate (ids that are not UUIDs) is read up to the limit.
  const estimate = size(smallest);
  const lower = text.toLowerCase();
  const contains = (item: Record<string, unknown>) => String(item.name).toLowerCase().includes(lower);
  if (smallest.done ? smallest.items.length <= limit : estimate <= limit * SEGMENTED_SHARE)
    onServed?.((estimate * smallest.items.filter(contains).length) / Math.max(1, smallest.items.length));
  // keepRead: one within NEAR_LIMIT is read to its end as well, side by side (its names are kept).
  const near = limit * NEAR_LIMIT;
  if (!smallest.done && estimate <= (keepRead ? near : limit * SEGMENTED_SHARE)) await readRest(smallest, estimate);
  else if (estimate <= near || estimate === Number.MAX_SAFE_INTEGER) await fill(smallest, limit + 1);
  if (!smallest.done) await smallest.iterator.return?.(undefined);
  const found = await unindexed;
  if (!smallest.done || (smallest.items.length > limit && !keepRead)) return undefined;
  return [...smallest.items, ...found]
    .map((item) => ({
      applicationId: item.applicationId as string,
      environmentId: item.environmentId as string | undefined,
      name: item.name as string,
    }))
    .filter((match) => match.name.toLowerCase().includes(lower));
}

/**
 * A trigram partition estimated within this many times namesContaining's limit may still end within it (the estimate
 * errs by about a seventh): it is read on up to the limit, or with keepRead to its end.
 */
const NEAR_LIMIT = 1.5;

/**
 * A trigram partition estimated at most this share of namesContaining's limit is read to its end as segments side by
 * side (readRest): the estimate errs by about a seventh, so one that size is within the limit.
 */
const SEGMENTED_SHARE = 0.6;

/**
 * The rest of a sampled trigram partition, after its last sampled entry: its ids (the owners', random) cut into
 * segments of about 600 read side by side (db/query.ts segmentedItems), one round trip rather than a call per 1 MB
 * page (or per growing call).
 */
async function readRest(
  walk: { query: PartitionQuery; iterator: AsyncIterator<unknown>; items: Record<string, unknown>[]; done: boolean },
  estimate: number,
): Promise<void> {
  await walk.iterator.return?.(undefined);
  const after = walk.items.at(-1)!.gsi7sk as string;
  const { index, partition } = walk.query;
  const segments = Math.min(100, Math.ceil((estimate - walk.items.length) / 600));
  const rest = await collect(segmentedItems({ index, partition, skFrom: justAfter(after) }, idSplits(segments, after)));
  walk.items.push(...rest.filter((item) => item.gsi7sk !== after));
  walk.done = true;
}

/** The organization's buckets that ever held an application: one Query of its counter items. */
export async function organizationBuckets(orgId: string): Promise<Bucket[]> {
  const items = await queryAll(bucketsRead(orgId));
  return items.map((item) => {
    const [, applicationType, team] = String(item.sk).split('#');
    const health = Object.fromEntries(
      BUCKET_HEALTH_FIELDS.map((f) => [f, Number(item[f] ?? 0)]),
    ) as unknown as BucketHealth;
    return {
      applicationType: applicationType as ApplicationType,
      teamId: team === '-' ? undefined : team,
      applications: Number(item.applications ?? 0),
      environments: Number(item.environments ?? 0),
      health,
    };
  });
}

/** The index and partition of one bucket's live applications in name, id or status order. */
function applicationOrder(
  orgId: string,
  { applicationType, teamId }: Pick<Bucket, 'applicationType' | 'teamId'>,
  order: ApplicationListOrder,
): { index: MainIndex; partition: string } {
  if (order === 'name')
    return { index: 'gsi4', partition: keys.applicationsOfBucketByName(orgId, applicationType, teamId).gsi4pk };
  if (order === 'id')
    return { index: 'gsi6', partition: keys.applicationsOfBucketById(orgId, applicationType, teamId).gsi6pk };
  return { index: 'gsi1c', partition: keys.applicationsOfBucketByStatus(orgId, applicationType, teamId).gsi1pk };
}

/** The Query of one bucket's live applications in an order (applicationEntries reads it; a list may prefetch it). */
export function applicationEntriesQuery(
  orgId: string,
  bucket: Pick<Bucket, 'applicationType' | 'teamId'>,
  order: ApplicationListOrder,
  forward: boolean,
  pageLimit?: number,
): PartitionQuery {
  const { index, partition } = applicationOrder(orgId, bucket, order);
  return entryQuery(index, { partition, forward, pageLimit });
}

/**
 * The live applications of one bucket in name, id or status order, read lazily; `prefetchedFirstCall`: the first
 * call from the request's prefetch of applicationEntriesQuery's first call, when there is one.
 */
export function applicationEntries(
  orgId: string,
  bucket: Pick<Bucket, 'applicationType' | 'teamId'>,
  order: ApplicationListOrder,
  forward: boolean,
  pageLimit?: number,
  attributes?: string[],
  options: ReadOptions = {},
): AsyncGenerator<ListEntry> {
  const { index, partition } = applicationOrder(orgId, bucket, order);
  return entries(index, { partition, forward, pageLimit, attributes }, options);
}

/** Every live application of one bucket, whole (gsi1 copies whole items; its partition is the bucket's status order). */
export async function wholeApplicationsOfBucket(
  orgId: string,
  bucket: Pick<Bucket, 'applicationType' | 'teamId'>,
): Promise<ApplicationRecord[]> {
  const items = await queryAll({
    index: 'gsi1',
    partition: keys.applicationsOfBucketByStatus(orgId, bucket.applicationType, bucket.teamId).gsi1pk,
  });
  return items.map((item) => fromItem<ApplicationRecord>(item)!);
}

/** Applications whose cascade delete has started (their environments' entries may still be in the indexes). */
export async function deletingApplicationIds(orgId: string): Promise<Set<string>> {
  const items = await queryAll(deletingRead(orgId));
  return new Set(items.map((item) => item.applicationId as string));
}

const bucketsRead = (orgId: string): PartitionQuery => {
  const { pk, skPrefix } = keys.organizationCountersOfOrg(orgId);
  return { partition: pk, skPrefix };
};
const deletingRead = (orgId: string): PartitionQuery => ({
  index: 'gsi5',
  partition: keys.deletingApplicationsOfOrg(orgId).gsi5pk,
});

/** What listScope reads first (the buckets' counters, the applications being deleted): a list prefetches them. */
export const listScopeReads = (orgId: string): PartitionQuery[] => [bucketsRead(orgId), deletingRead(orgId)];

/**
 * The applications a page covers when each contributes `count(app)` items in order: walks their entries only,
 * skipping whole applications up to the page's start; for each, how many of its items to skip and take.
 */
export async function applicationsCovering<T>(
  apps: AsyncIterable<T>,
  count: (app: T) => number,
  start: number,
  size: number,
) {
  const onPage: { entry: T; skip: number; take: number }[] = [];
  let skip = start;
  let wanted = size;
  for await (const entry of apps) {
    if (wanted <= 0) break;
    const n = count(entry);
    if (skip >= n) {
      skip -= n;
      continue;
    }
    const take = Math.min(n - skip, wanted);
    onPage.push({ entry, skip, take });
    wanted -= take;
    skip = 0;
  }
  return onPage;
}

/** Merges streams each ordered by `sortKey` into one (ascending when `forward`). */
export async function* mergeOrdered(streams: AsyncIterable<ListEntry>[], forward: boolean): AsyncGenerator<ListEntry> {
  const iterators = streams.map((s) => s[Symbol.asyncIterator]());
  const heads = await Promise.all(iterators.map((it) => it.next()));
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      if (heads[i].done) continue;
      if (best < 0) best = i;
      else {
        const [a, b] = [heads[i].value.sortKey, heads[best].value.sortKey];
        if (forward ? a < b : a > b) best = i;
      }
    }
    if (best < 0) return;
    yield heads[best].value;
    heads[best] = await iterators[best].next();
  }
}

/**
 * `byApplication: false`: the caller reads only the selected buckets' own partitions (application lists), so
 * `keep` need not tell hidden applications apart and their ids are not read. `onBuckets` is shown the selected
 * buckets and the counters as soon as they are read, before the hidden applications' ids are: what a list reads
 * from them alone goes beside those.
 */
export async function listScope(
  orgId: string,
  membership: Membership,
  types: ApplicationType[],
  teamIds: string[],
  {
    byApplication = true,
    onBuckets,
  }: {
    byApplication?: boolean;
    onBuckets?: (scope: CountedScope) => void;
  } = {},
): Promise<ListScope> {
  const [all, deleting] = await Promise.all([organizationBuckets(orgId), deletingApplicationIds(orgId)]);
  const teams = visibleTeams(membership, teamIds);
  const typed = all.filter((b) => types.includes(b.applicationType));
  const buckets = typed.filter((b) => teams.includes(b.teamId));
  const hidden = byApplication ? typed.filter((b) => !teams.includes(b.teamId) && b.applications > 0) : [];
  const sum = (list: Bucket[], field: 'applications' | 'environments') => list.reduce((n, b) => n + b[field], 0);
  const counts = { applications: sum(buckets, 'applications'), environments: sum(buckets, 'environments') };
  const organization = { applications: sum(all, 'applications'), environments: sum(all, 'environments') };
  const idsOf = async (list: Bucket[]) => {
    const ids = new Set<string>();
    const found = await Promise.all(list.map((b) => bucketApplicationEntries(orgId, b, ['applicationId'])));
    for (const entry of found.flat()) ids.add(entry.applicationId);
    return ids;
  };
  // Applications outside the scope that `shown` below does not already tell apart: of other types (and of hidden
  // teams, when their ids are not read). Their ids (or the scope's, when fewer) are read for applicationKeep, from
  // the counters alone: a caller may start that read beside the hidden applications' ids (onBuckets).
  const outside = all.filter((b) => (byApplication ? !typed.includes(b) : !buckets.includes(b)) && b.applications > 0);
  let outsideKeep: Promise<(appId: string) => boolean> | undefined;
  const readOutsideKeep = async (): Promise<(appId: string) => boolean> => {
    if (outside.length === 0) return () => true;
    if (sum(outside, 'applications') <= counts.applications) {
      const outsideIds = await idsOf(outside);
      return (appId) => !outsideIds.has(appId);
    }
    const insideIds = await idsOf(buckets);
    return (appId) => insideIds.has(appId);
  };
  const startOutsideKeep = () => (outsideKeep ??= readOutsideKeep());
  onBuckets?.({
    buckets,
    counts,
    organization,
    startApplicationKeep: () => void startOutsideKeep().catch(() => undefined), // awaited by applicationKeep
  });
  let shown: (appId: string) => boolean = (appId) => !deleting.has(appId);
  if (hidden.length && sum(hidden, 'applications') <= counts.applications) {
    const hiddenIds = await idsOf(hidden);
    shown = (appId) => !hiddenIds.has(appId) && !deleting.has(appId);
  } else if (hidden.length) {
    const shownIds = await idsOf(buckets);
    shown = (appId) => shownIds.has(appId) && !deleting.has(appId);
  }
  let applicationKeep: Promise<(appId: string) => boolean> | undefined;
  const readApplicationKeep = async (): Promise<(appId: string) => boolean> => {
    const inside = await startOutsideKeep();
    return (appId) => inside(appId) && shown(appId);
  };
  return {
    buckets,
    counts,
    organization,
    whole: !all.some((b) => !buckets.includes(b) && b.applications > 0),
    keep: (entry) => types.includes(entry.applicationType) && shown(entry.applicationId),
    applicationKeep: () => (applicationKeep ??= readApplicationKeep()),
  };
}

/** The ids of the scope's applications with this status (ENV_INCOMPLETE: without environments): a prefix of each bucket's status index. */
export async function applicationIdsWithStatus(
  orgId: string,
  scope: ListScope,
  status: ApplicationStatus,
): Promise<string[]> {
  const found = await Promise.all(
    scope.buckets.map(async (b) => {
      const items = await queryAll({
        index: 'gsi1c',
        partition: keys.applicationsOfBucketByStatus(orgId, b.applicationType, b.teamId).gsi1pk,
        skPrefix: `${status}#`,
        attributes: ['applicationId'],
      });
      return items
        .map((item) => item.applicationId as string)
        .filter((applicationId) => scope.keep({ applicationId, applicationType: b.applicationType }));
    }),
  );
  return found.flat();
}
