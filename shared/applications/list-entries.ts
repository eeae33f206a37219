import { keys, trigrams } from '../db/keys.ts';
import { collect, queryAll, queryItems, type PartitionQuery, type Reads } from '../db/query.ts';
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

/** Entries of one index partition; `attributes` narrows what each carries (whole-organization counts and scans). */
async function* entries(index: MainIndex, query: EntryQuery, { prefetchedFirstCall = false } = {}) {
  const sk = indexKeyNames(index).sk;
  for await (const item of queryItems(entryQuery(index, query), { prefetchedFirstCall }))
    yield { ...(item as Omit<ListEntry, 'sortKey'>), sortKey: item[sk] as string };
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
  { prefetchedFirstCall = false } = {},
): AsyncGenerator<ListEntry> {
  const { index, partition } = ENVIRONMENT_ORDERS[order](orgId);
  return entries(index, { partition, forward, pageLimit, attributes }, { prefetchedFirstCall });
}

/**
 * Every live environment entry of the organization (in name order: one walk of gsi2c). Split into parallel key
 * ranges of the id index, the same read took DynamoDB Local several times longer.
 */
export function allEnvironmentEntries(orgId: string): Promise<ListEntry[]> {
  return collect(environmentEntries(orgId, 'name', true, 1000));
}

/** The Query of environmentEntriesNamed (a list's prefetch names its first call). */
export function environmentEntriesNamedQuery(orgId: string, name: string): PartitionQuery {
  const { gsi2pk, gsi2skPrefix } = keys.environmentsOfOrgNamed(orgId, name);
  return entryQuery('gsi2c', { partition: gsi2pk, skPrefix: gsi2skPrefix, pageLimit: 1000 });
}

/**
 * Environments named `name` (case-insensitive), in name order: a prefix of the name index; the first call from the
 * request's prefetch of it (environmentEntriesNamedQuery) when there is one.
 */
export async function environmentEntriesNamed(orgId: string, name: string): Promise<ListEntry[]> {
  const { gsi2pk, gsi2skPrefix } = keys.environmentsOfOrgNamed(orgId, name);
  const query = { partition: gsi2pk, skPrefix: gsi2skPrefix, pageLimit: 1000 };
  const found = await collect(entries('gsi2c', query, { prefetchedFirstCall: true }));
  return found.filter((e) => e.name.toLowerCase() === name.toLowerCase());
}

/** Environments whose last scan has this status (or NONE), in name order. */
export function environmentEntriesWithStatus(orgId: string, status: string): Promise<ListEntry[]> {
  return collect(
    entries('gsi1c', { partition: keys.environmentsOfOrgWithStatus(orgId, status).gsi1pk, pageLimit: 1000 }),
  );
}

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
 * samples may come from the request's prefetch (nameSampleReads).
 */
export async function namesContaining(
  orgId: string,
  kind: 'APP' | 'ENV',
  text: string,
  limit: number,
): Promise<NameMatch[] | undefined> {
  const reads = nameSamples(orgId, kind, text);
  if (!reads) return undefined;
  const walks = reads.samples.map((query) => ({
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
  if (estimate <= limit * 1.5 || estimate === Number.MAX_SAFE_INTEGER) await fill(smallest, limit + 1);
  if (!smallest.done) await smallest.iterator.return?.(undefined);
  const found = await unindexed;
  if (!smallest.done || smallest.items.length > limit) return undefined;
  const lower = text.toLowerCase();
  return [...smallest.items, ...found]
    .map((item) => ({
      applicationId: item.applicationId as string,
      environmentId: item.environmentId as string | undefined,
      name: item.name as string,
    }))
    .filter((match) => match.name.toLowerCase().includes(lower));
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

/** The live applications of one bucket in name, id or status order, read lazily. */
export function applicationEntries(
  orgId: string,
  bucket: Pick<Bucket, 'applicationType' | 'teamId'>,
  order: ApplicationListOrder,
  forward: boolean,
  pageLimit?: number,
  attributes?: string[],
): AsyncGenerator<ListEntry> {
  const { applicationType, teamId } = bucket;
  const query = { forward, pageLimit, attributes };
  if (order === 'name')
    return entries('gsi4', {
      partition: keys.applicationsOfBucketByName(orgId, applicationType, teamId).gsi4pk,
      ...query,
    });
  if (order === 'id')
    return entries('gsi6', {
      partition: keys.applicationsOfBucketById(orgId, applicationType, teamId).gsi6pk,
      ...query,
    });
  return entries('gsi1c', {
    partition: keys.applicationsOfBucketByStatus(orgId, applicationType, teamId).gsi1pk,
    ...query,
  });
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
 * `keep` need not tell hidden applications apart and their ids are not read.
 */
export async function listScope(
  orgId: string,
  membership: Membership,
  types: ApplicationType[],
  teamIds: string[],
  { byApplication = true } = {},
): Promise<ListScope> {
  const [all, deleting] = await Promise.all([organizationBuckets(orgId), deletingApplicationIds(orgId)]);
  const teams = visibleTeams(membership, teamIds);
  const typed = all.filter((b) => types.includes(b.applicationType));
  const buckets = typed.filter((b) => teams.includes(b.teamId));
  const hidden = byApplication ? typed.filter((b) => !teams.includes(b.teamId) && b.applications > 0) : [];
  const sum = (list: Bucket[], field: 'applications' | 'environments') => list.reduce((n, b) => n + b[field], 0);
  const counts = { applications: sum(buckets, 'applications'), environments: sum(buckets, 'environments') };
  const idsOf = async (list: Bucket[]) => {
    const ids = new Set<string>();
    const found = await Promise.all(
      list.map((b) => collect(applicationEntries(orgId, b, 'id', true, 1000, ['applicationId']))),
    );
    for (const entry of found.flat()) ids.add(entry.applicationId);
    return ids;
  };
  let shown: (appId: string) => boolean = (appId) => !deleting.has(appId);
  if (hidden.length && sum(hidden, 'applications') <= counts.applications) {
    const hiddenIds = await idsOf(hidden);
    shown = (appId) => !hiddenIds.has(appId) && !deleting.has(appId);
  } else if (hidden.length) {
    const shownIds = await idsOf(buckets);
    shown = (appId) => shownIds.has(appId) && !deleting.has(appId);
  }
  // Applications outside the scope that `shown` does not already tell apart: of other types (and of hidden teams, when
  // their ids were not read).
  const outside = all.filter((b) => (byApplication ? !typed.includes(b) : !buckets.includes(b)) && b.applications > 0);
  let applicationKeep: Promise<(appId: string) => boolean> | undefined;
  const readApplicationKeep = async (): Promise<(appId: string) => boolean> => {
    if (outside.length === 0) return shown;
    if (sum(outside, 'applications') <= counts.applications) {
      const outsideIds = await idsOf(outside);
      return (appId) => !outsideIds.has(appId) && shown(appId);
    }
    const insideIds = await idsOf(buckets);
    return (appId) => insideIds.has(appId) && shown(appId);
  };
  return {
    buckets,
    counts,
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
