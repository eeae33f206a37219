import * as z from 'zod/mini';
import { en } from 'zod/locales'; // not z.locales.en: that keeps every locale in the bundles (200 KB)
import { UUID } from './input/uuid.ts';
import { MAX_LIST_FILTER_VALUES } from './limits.ts';

// zod mini loads no locale: without this, the issues whose message the schemas leave to zod (e.g. "Too big: expected
// number to be <=1000") would all read "Invalid input".
z.config(en());

// Query parameters, ordering and paging shared by every list operation (docs/API.md, Lists). Query strings arrive as
// strings; API Gateway joins a repeated parameter's values with commas, and the local server does the same, so a
// list parameter is accepted both comma-joined and repeated.

// An empty value (`pageToken=`, as clients that send an empty token back write it) is the parameter's default.
const integer = (min: number, max: number | undefined, fallback: number) => {
  const digits = z.pipe(z.string().check(z.regex(/^\s*-?\d+\s*$/, 'must be an integer')), z.transform(Number));
  const bounded =
    max === undefined ? z.number().check(z.int(), z.gte(min)) : z.number().check(z.int(), z.gte(min), z.lte(max));
  const blankIsAbsent = z.pipe(
    z.string(),
    z.transform((v) => (v.trim() === '' ? undefined : v)),
  );
  return z.pipe(
    z.optional(z.pipe(blankIsAbsent, z.optional(z.pipe(digits, bounded)))),
    z.transform((value) => value ?? fallback),
  );
};

/** pageSize: 1 to 1000, default 10 (the findings report: 500; a scan diff: 1 to 20,000). */
export const pageSizeParam = (fallback = 10, max = 1000) =>
  integer(1, max, fallback).check(z.describe(`Page size, 1 to ${max} (default ${fallback}).`));

/** limit: 1 to `max`, default `fallback` (listProfileScanResults: 10, at most 50). */
export const limitParam = (max: number, fallback: number) =>
  integer(1, max, fallback).check(z.describe(`Maximum number of results, 1 to ${max} (default ${fallback}).`));

/** The page that `pageToken=-1` names: past the end of every list (docs/COMPATIBILITY.md "Paging"). */
export const PAST_EVERY_PAGE = 2_147_483_647;

/**
 * pageToken: the 0-based page number (an int32, as the public API declares it), default 0 (also when empty); -1, the
 * audit list's end marker sent back, names the page past every list.
 */
export const pageTokenParam = () =>
  z
    .pipe(
      z.optional(
        z.pipe(
          z.string(),
          z.transform((v) => (v.trim() === '-1' ? String(PAST_EVERY_PAGE) : v)),
        ),
      ),
      integer(0, PAST_EVERY_PAGE, 0),
    )
    .check(z.describe('0-based page number, at most 2147483647 (default 0); -1: the page past the last.'));
/** An integer such as a time in ms, default 0. */
export const integerParam = (fallback = 0) => integer(0, undefined, fallback);

/** A time range's `start` and `end` (ms; `end` 0: unbounded): start must not be after end. */
export const startNotAfterEnd = <T extends { start: number; end: number }>() =>
  z.refine<T>((q) => q.end === 0 || q.start <= q.end, { message: 'must not be after end', path: ['start'] });

/** `true` or `false` in any case; absent: the default (so a boolean whenever there is one). */
export const booleanParam = <Fallback extends boolean | undefined>(fallback: Fallback) => {
  const word = z.pipe(
    z.pipe(
      z.string(),
      z.transform((v) => v.trim().toLowerCase()),
    ),
    z.enum(['true', 'false'], { error: 'must be true or false' }),
  );
  return z.pipe(
    z.optional(
      z.pipe(
        word,
        z.transform((v) => v === 'true'),
      ),
    ),
    z.transform((v): boolean | Fallback => v ?? fallback),
  );
};

/** One of the values, in any case (e.g. sortDir asc/ASC). */
export const caseInsensitiveEnum = <const T extends string>(values: readonly [T, ...T[]]) => {
  const upper = z.pipe(
    z.pipe(
      z.string(),
      z.transform((v) => v.trim().toUpperCase()),
    ),
    z.enum(values.map((v) => v.toUpperCase()) as [string, ...string[]], {
      error: `must be one of ${values.join(', ')}`,
    }),
  );
  return z.optional(
    z.pipe(
      upper,
      z.transform((v) => values.find((value) => value.toUpperCase() === v)!),
    ),
  );
};

/**
 * A list parameter, comma-joined or repeated, each value once, at most MAX_LIST_FILTER_VALUES of them (400 naming the
 * bound: a filter's values become reads, so their number bounds the request's work); each item validated by `item`.
 * Absent: `fallback`.
 */
export const listParam = <T extends string>(item: z.ZodMiniType<T, string>, fallback: T[] = []) => {
  const split = (v: string) => [
    ...new Set(
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const items = z.pipe(
    z.pipe(z.string(), z.transform(split)),
    z
      .array(item)
      .check(z.maxLength(MAX_LIST_FILTER_VALUES, `must have at most ${MAX_LIST_FILTER_VALUES} distinct values`)),
  );
  return z.pipe(
    z.optional(items),
    z.transform((v): T[] => (v === undefined || v.length === 0 ? fallback : v)),
  );
};

/** A UUID, lower-cased (ids are stored lower-case; clients may send either case). */
export const uuidSchema = () =>
  z.pipe(
    z.string().check(z.regex(UUID, 'must be a UUID')),
    z.transform((id) => id.toLowerCase()),
  );
export const uuidListParam = () =>
  listParam(z.string().check(z.regex(UUID, 'must be a UUID'))).check(
    z.describe(`Comma-delimited UUIDs, at most ${MAX_LIST_FILTER_VALUES}.`),
  );
export const nameListParam = () =>
  listParam(z.string().check(z.maxLength(255))).check(
    z.describe(`Comma-delimited names, at most ${MAX_LIST_FILTER_VALUES}.`),
  );
export const enumListParam = <T extends string>(values: readonly [T, ...T[]], fallback: T[] = []) =>
  listParam(
    z.enum(values, { error: `must be one of ${values.join(', ')}` }) as unknown as z.ZodMiniType<T, string>,
    fallback,
  ).check(z.describe(`Comma-delimited, of ${values.join(', ')}.`));

/** The V2 lists' free-text `query` (docs/API.md, List Environments V2). */
export const v2QueryParam = (matches: string) =>
  z
    .optional(z.string().check(z.regex(/^[\w\-\s/_.~]*$/, 'must match ^[\\w\\-\\s\\/\\_\\.\\~]*$')))
    .check(z.describe(`Case-insensitive part of ${matches}.`));
export const v2SortDirParam = () => caseInsensitiveEnum(['ASC', 'DESC', 'UNSORTED']);

// ---- Ordering

/** The name order of the name indexes, reproduced in memory: lower-cased name, then id. */
export { nameOrderKey } from './db/sortable.ts';

export type SortDirection = 'ASC' | 'DESC';

/** A total order: the sort value first, then the id, so that equal values page stably. */
export function compareBy<T>(
  value: (item: T) => string | number,
  id: (item: T) => string,
  direction: SortDirection,
): (a: T, b: T) => number {
  const sign = direction === 'DESC' ? -1 : 1;
  return (a, b) => {
    const [x, y] = [value(a), value(b)];
    if (x !== y) return (x < y ? -1 : 1) * sign;
    const [i, j] = [id(a), id(b)];
    return (i < j ? -1 : i > j ? 1 : 0) * sign;
  };
}

// ---- Paging

export interface PageRequest {
  /** 0-based page number. */
  page: number;
  size: number;
}

export interface PageOf<T> {
  items: T[];
  totalCount: number;
  hasNext: boolean;
}

/** The requested page of an already filtered and sorted list. */
export function pageOf<T>(all: T[], { page, size }: PageRequest): PageOf<T> {
  const start = page * size;
  return { items: all.slice(start, start + size), totalCount: all.length, hasNext: start + size < all.length };
}

/**
 * Collects the requested page from items arriving in their final order, reading only as far as the page (plus
 * one item, to know whether there is a next page). `exhausted` says whether everything was read, in which case
 * `seen` is the exact total. `onPage` sees each item of the page as it is found (a list reading what the page
 * needs before the page is complete).
 */
export async function pageFromStream<T>(
  items: AsyncIterable<T>,
  keep: (item: T) => boolean | Promise<boolean>,
  { page, size }: PageRequest,
  onPage?: (item: T) => void,
): Promise<{ items: T[]; hasNext: boolean; exhausted: boolean; seen: number }> {
  const start = page * size;
  const pageItems: T[] = [];
  let seen = 0;
  for await (const item of items) {
    if (!(await keep(item))) continue;
    if (seen >= start + size) return { items: pageItems, hasNext: true, exhausted: false, seen: seen + 1 };
    if (seen >= start) {
      pageItems.push(item);
      onPage?.(item);
    }
    seen++;
  }
  return { items: pageItems, hasNext: false, exhausted: true, seen };
}

/** The items of each part in turn (a list made of an index walk and items read whole). */
export async function* concat<T>(...parts: (AsyncIterable<T> | T[])[]): AsyncGenerator<T> {
  for (const part of parts) yield* part;
}

/** Items to ask DynamoDB for per call when a page needs `request`: up to the end of the page, plus one. */
export const readAhead = ({ page, size }: PageRequest) => Math.min(1000, (page + 1) * size + 1);

/**
 * A walk's first call when it tells its calls what it still wants (db/query.ts ReadOptions `wanted`): every item up
 * to the end of the page, plus one, which the walk reads whatever its filters leave out (a deep page in as few calls
 * as the 1 MB pages allow).
 */
export const walkAhead = ({ page, size }: PageRequest) => (page + 1) * size + 1;

/** Items a walk keeps before the share it keeps sizes its calls (walkWants): fewer tell too little. */
const WANTS_KEPT = 20;

/**
 * What a walk for `request` still wants of its index, for its calls' sizes (db/query.ts ReadOptions `wanted`): the
 * items it lacks to the end of the page (plus one), scaled by the share of the items read so far that it kept, once
 * it kept WANTS_KEPT (before, a filter that keeps a few in a hundred would size a call on one or two: the calls grow
 * as they did). `keep` counts what the walk keeps (pageFromStream's filter). `share`: the share of the index the
 * walk's filters keep at most (the caller's scope of the organization, from its counters; with `query`, times its
 * matches' share, from its names: applications/list-plan.ts queryWalkShare). Until the walk has kept
 * enough to tell its own share, its calls are sized on the lesser of that and what it kept so far (one more kept
 * than it did, of one more read: hopeful while it has kept none), a quarter more for the chance of a sparse
 * stretch, and never fewer than the 4 times as many as it read that the calls would grow to: a filter that keeps one
 * in fifty reads the rest of its page in one call rather than four, and another filter that thins the walk further
 * (`query`) still sizes the calls on what it keeps.
 */
export function walkWants<T>(request: PageRequest, keep: (item: T) => boolean, share?: number) {
  const needed = walkAhead(request);
  let kept = 0;
  const prior = share !== undefined && share > 0 && share < 1 ? share : undefined;
  return {
    keep: (item: T) => {
      const shown = keep(item);
      if (shown) kept++;
      return shown;
    },
    wanted: (read: number) =>
      kept >= WANTS_KEPT
        ? Math.ceil(((needed - kept) * read) / kept)
        : prior
          ? Math.max(
              Math.ceil(((needed - kept) / Math.min(prior, (kept + 1) / (read + 1))) * 1.25),
              Math.min(1000, 4 * read),
            )
          : undefined,
  };
}

/**
 * Deprecated (V1) lists' `nextPageToken` (docs/COMPATIBILITY.md "Paging"): the next page's number while items remain;
 * after the last page with items, `totalCount + 1`, a page past the end (so that clients counting pages up to
 * `totalCount` stop); that page, and any page beyond `totalCount`, answers the list's end marker (empty, or the audit
 * list's "-1"); the page `pageToken=-1` names answers an empty token, so clients that stop only on one stop there too.
 */
export function v1NextPageToken({ page, size }: PageRequest, totalCount: number, endMarker = ''): string {
  if (page === PAST_EVERY_PAGE) return '';
  if (page > totalCount) return endMarker;
  return String((page + 1) * size < totalCount ? page + 1 : totalCount + 1);
}

/** The paging fields of the lists that have both tokens but no page objects (organization configurations and policies). */
export function pageTokens(request: PageRequest, page: PageOf<unknown>) {
  return {
    totalCount: page.totalCount,
    hasNext: page.hasNext,
    hasPrev: request.page > 0,
    nextPageToken: v1NextPageToken(request, page.totalCount),
    prevPageToken: request.page > 0 ? String(request.page - 1) : '',
  };
}

// ---- V2 envelopes (pagination.Page)

export interface V2Filter {
  name: string;
  values: string[];
}

export interface V2PageQuery {
  /** `page` (`p_N`) when given, else `pageToken`. */
  request: PageRequest;
  query: string;
  sortField: string;
  sortDir: SortDirection;
  filters: V2Filter[];
}

/** `page=p_N` selects page N like `pageToken=N`; an empty `page` defers to pageToken. */
export const v2PageParam = () =>
  z
    .optional(z.string().check(z.regex(/^(p_\d{1,9})?$/, 'must be p_<page number>, e.g. p_0')))
    .check(z.describe('Page key `p_<n>` (0-based); takes precedence over pageToken.'));

export function v2PageRequest(page: string | undefined, pageToken: number, pageSize: number): PageRequest {
  return { page: page ? Number(page.slice(2)) : pageToken, size: pageSize };
}

function pageObject(q: V2PageQuery, number: number) {
  return {
    number,
    size: q.request.size,
    query: q.query,
    sortOptions: { field: q.sortField, direction: q.sortDir },
    filters: q.filters
      .filter((f) => f.values.length > 0)
      .map((f) =>
        f.values.length === 1 ? { name: f.name, value: f.values[0] } : { name: f.name, multi: { values: f.values } },
      ),
  };
}

/** The paging fields of a V2 list response: current/next/previous pages, their tokens and the total. */
export function v2Envelope(q: V2PageQuery, totalCount: number, hasNext: boolean) {
  const { page } = q.request;
  const hasPrev = page > 0;
  return {
    totalCount,
    currentPage: pageObject(q, page),
    hasNext,
    nextPage: hasNext ? pageObject(q, page + 1) : undefined,
    nextPageToken: hasNext ? String(page + 1) : '',
    hasPrev,
    prevPage: hasPrev ? pageObject(q, page - 1) : undefined,
    prevPageToken: hasPrev ? String(page - 1) : '',
  };
}
