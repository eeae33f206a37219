import { createHash } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { byUtf8, getItem } from '../db/query.ts';
import type { Bucket, ListEntry } from './model.ts';

// Learned fences (docs/DATA-MODEL.md, List fences): for an ordered partition of the organization's list indexes
// (its environments by name, scan date, scan duration or findings, each way; those of a last-scan status), the sort
// keys of the entries at every FENCE_SPACING-th place of a walk, learned by a list that walked it (it reads the keys
// anyway). A later walk reads them in its first round trip and reads the ranges between them side by side
// (list-entries.ts fencedWalk, fencedWalkFromStart): every entry before the page is still read, so counts and pages
// stay exact; fences that went stale since (entries added or deleted) only cost a segment another call. A cache
// written by a GET: small, under the organization's key, and written only when missing or off by more than a quarter
// of a segment.

/** Entries between two fences: under DynamoDB's 1 MB page of compact entries (about 860 on DynamoDB Local). */
export const FENCE_SPACING = 700;
/** The fences' keys kept at most (bytes): the item stays within one 4 KB read (half a read unit). */
const FENCE_BYTES = 3_500;

export interface Fences {
  /** Sort keys of the entries at the walk's places spacing, 2 x spacing, ... (1-based), in walk order. */
  keys: string[];
  spacing: number;
  /** The organization's environments when they were learned (how far they may have drifted since). */
  entries: number;
  /** When they were learned (ms): a rewrite is conditioned on it. */
  version: number;
  /**
   * For a caller's scope that thins the list (`scope`: scopeId), the entries it kept among the walk's first
   * spacing x (i + 1) places (`counts[i]`), learned with the keys by a walk for that scope (list-plan.ts keptReach).
   */
  kept?: { scope: string; counts: number[] };
}

/** Kept counts are stored for the fences while the item stays within one 4 KB read (about 5 bytes a count). */
const KEPT_BYTES = 3_900;

/** A caller's scope as fences know it: its buckets (types and owning teams), hashed. */
export const scopeId = (buckets: Pick<Bucket, 'applicationType' | 'teamId'>[]) =>
  createHash('sha1')
    .update(
      buckets
        .map((b) => `${b.applicationType}#${b.teamId ?? '-'}`)
        .sort()
        .join(','),
    )
    .digest('base64url')
    .slice(0, 16);

/** A walk's scope, when it thins the list: its id (scopeId) and what it keeps (ListScope keep). */
export interface KeptScope {
  id: string;
  keep: (entry: Pick<ListEntry, 'applicationId' | 'applicationType'>) => boolean;
}

/** The environments' orders with fences: every index order but the id order (whose walks cut the id space instead). */
export type FencedOrder = 'name' | 'scanDate' | 'duration' | 'findings';

/** A fenced list: one ordered partition walked one way. */
export type FencedList = `envs-${FencedOrder}-${'asc' | 'desc'}` | `envs-status-${string}`;

export const fencesKey = (orgId: string, list: FencedList) => keys.listFences(orgId, list);

/** The list's fences (the request's prefetch of them, when it has one); undefined when none were learned. */
export async function readFences(orgId: string, list: FencedList): Promise<Fences | undefined> {
  const item = await getItem(fencesKey(orgId, list));
  if (!item || !Array.isArray(item.keys) || typeof item.spacing !== 'number' || item.spacing < 1) return undefined;
  return {
    keys: item.keys as string[],
    spacing: item.spacing,
    entries: Number(item.entries ?? 0),
    version: Number(item.version ?? 0),
    kept:
      typeof item.keptScope === 'string' && Array.isArray(item.keptCounts)
        ? { scope: item.keptScope, counts: (item.keptCounts as unknown[]).map(Number) }
        : undefined,
  };
}

/** The fences with their estimated places in the walk (list-entries.ts fencedWalk): learned ones scaled by `scale`. */
export const placedFences = (fences: Fences | undefined, scale = 1) =>
  (fences?.keys ?? []).map((key, i) => ({ key, at: Math.round((i + 1) * fences!.spacing * scale) }));

/** Walk order of two sort keys (negative: `a` comes first). */
const walkOrder = (forward: boolean) => (a: string, b: string) => (forward ? byUtf8(a, b) : byUtf8(b, a));

/** How many of `seen` (in walk order) come before `key`. */
function placeOf(seen: string[], key: string, order: (a: string, b: string) => number): number {
  let [lo, hi] = [0, seen.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (order(seen[mid], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The fences a walk that saw `seen` (every sort key from the partition's start, in walk order) learned; whether they
 * should replace `stored`: none stored, the walk saw further than they reach, or a stored fence that it passed now
 * sits more than a quarter of a segment from its place.
 */
export function learnedFences(
  seen: string[],
  stored: Fences | undefined,
  forward: boolean,
  spacing = FENCE_SPACING,
): { keys: string[]; replace: boolean } {
  const learned: string[] = [];
  let bytes = 0;
  for (let at = spacing; at <= seen.length; at += spacing) {
    const key = seen[at - 1];
    bytes += Buffer.byteLength(key) + 4;
    if (bytes > FENCE_BYTES) break;
    learned.push(key);
  }
  if (learned.length === 0) return { keys: learned, replace: false };
  if (!stored || stored.spacing !== spacing || learned.length > stored.keys.length)
    return { keys: learned, replace: true };
  const order = walkOrder(forward);
  const off = stored.keys.some((key, i) => {
    const place = (i + 1) * spacing;
    if (place > seen.length) return false;
    return Math.abs(placeOf(seen, key, order) + 1 - place) > spacing / 4;
  });
  return { keys: learned, replace: off };
}

/**
 * Watches a walk's entries (every one it reads, kept or not, from the partition's start) and, once the list has its
 * page, writes the fences they teach when learnedFences says so, or, for a walk whose scope thins the list (`scope`),
 * when the stored ones have no kept counts of its scope as far as it walked: one conditional PutItem (on the version
 * read, or on none), beside the page's own reads. A concurrent rewrite wins; a failed write costs the next walk its
 * speed only. Scopes that thin the list take turns: the last walk's counts are kept.
 */
export function fenceLearner(
  orgId: string,
  list: FencedList,
  stored: Fences | undefined,
  forward: boolean,
  scope?: KeptScope,
) {
  const seen: string[] = [];
  const counts: number[] = [];
  let kept = 0;
  return {
    watch: async function* <T extends Pick<ListEntry, 'sortKey' | 'applicationId' | 'applicationType'>>(
      items: AsyncIterable<T>,
    ): AsyncGenerator<T> {
      for await (const item of items) {
        seen.push(item.sortKey);
        if (scope?.keep(item)) kept++;
        if (scope && seen.length % FENCE_SPACING === 0) counts.push(kept);
        yield item;
      }
    },
    learn: async (entries: number): Promise<void> => {
      const { keys: learned, replace } = learnedFences(seen, stored, forward);
      const keysBytes = learned.reduce((sum, key) => sum + Buffer.byteLength(key) + 4, 0);
      const keptCounts = counts.slice(0, Math.min(learned.length, Math.floor((KEPT_BYTES - keysBytes) / 5)));
      const newKept =
        !!scope &&
        keptCounts.length > 0 &&
        learned.length >= (stored?.keys.length ?? 0) &&
        (stored?.kept?.scope !== scope.id ||
          stored.entries !== entries ||
          keptCounts.length > stored.kept.counts.length);
      if (!replace && !newKept) return;
      const keptItem = scope && keptCounts.length ? { keptScope: scope.id, keptCounts } : {};
      await db
        .send(
          new PutCommand({
            TableName: config.tableName,
            Item: {
              ...fencesKey(orgId, list),
              keys: learned,
              spacing: FENCE_SPACING,
              entries,
              version: Date.now(),
              ...keptItem,
            },
            ConditionExpression: stored ? '#version = :version' : 'attribute_not_exists(pk)',
            ExpressionAttributeNames: stored ? { '#version': 'version' } : undefined,
            ExpressionAttributeValues: stored ? { ':version': stored.version } : undefined,
          }),
        )
        .catch(() => undefined); // a cache: another walk learns them again
    },
  };
}
