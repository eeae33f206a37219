import { walkAhead, type PageRequest } from '../lists.ts';
import type {
  ENV_SORT_FIELDS,
  APP_SORT_FIELDS,
  ListApplicationsV1Query,
  ListApplicationsV2Query,
  ListEnvironmentsV2Query,
} from './inputs.ts';
import { DEPRECATED_ENVIRONMENT_LIST_PLAN, ApplicationListOrder, EnvironmentListOrder } from './model.ts';

// How each application and environment list is served (docs/API.md, How a list is planned): a pure function of the
// query and of a few figures about the caller's scope chooses a plan, a value that names the strategy; one small
// executor per plan kind (environment-list.ts, applications.ts, environments.ts) carries it out. The figures are
// read before planning: the scope's counters, and for a `query` the names the trigram index gave.

// ---- Cost constants: what reads cost (DynamoDB read units) and where one strategy starts to cost less than another

/** Read units of an item read whole by key (BatchGetItem, eventually consistent: each rounded up to 4 KB). */
export const WHOLE_READ_UNITS = 0.5;
/** Bytes of an environment item read whole: about 1.1 KB, 1.3 KB with its last scan's figures. */
export const ENVIRONMENT_ITEM_BYTES = 1_300;
/**
 * Read units of an application's environments read whole by one Query of its partition: charged by their summed size
 * rounded up to 4 KB, halved (eventually consistent), half a unit at least (5 environments: 1 unit, not 2.5).
 */
export const applicationEnvironmentsUnits = (environments: number) =>
  Math.max(1, Math.ceil((environments * ENVIRONMENT_ITEM_BYTES) / 4096)) * WHOLE_READ_UNITS;
/** Read units of a compact index entry read by Query (about 380 bytes, charged by the 4 KB). */
export const COMPACT_ENTRY_UNITS = 0.05;
/**
 * Pages 0 to this of the environments' name and scan-date orders are walked on whole items (gsi2, gsi3): a Query is
 * charged by the kilobytes it reads, a BatchGetItem by the item, so up to about 5 pages of entries cost less read
 * whole than read compact and then fetched (pageSize 1000: 1,000 items in one Query instead of 1,000 gets).
 */
export const WHOLE_ITEM_PAGES = 3;
/** Applications per page size up to which reading all of the caller's applications whole costs less than the walk. */
export const WHOLE_READ_PAGES = 2;
/**
 * Items few enough to read whole (half a read unit each) rather than the compact entries of all `total` (about a
 * twentieth of a unit each): at most 100, or a tenth of them.
 */
export const isFew = (items: number, total: number) => items <= Math.max(100, total / 10);
/** Compact entries a first call of a walk surely reads when it asks for as many (1 MB: DynamoDB Local's page). */
export const FIRST_CALL_ENTRIES = 800;
/** Applications read whole by key (BatchGetItem) at most; beyond, the scope's compact entries give their figures. */
export const APPLICATIONS_READ_BY_KEY = 100;
/**
 * A page's applications are read by key up to this many; beyond (a page of 1,000 environments has about as many
 * applications), the compact entries of the scope's applications (about 300 bytes: 13 to the 4 KB a half unit reads)
 * cost less.
 */
export const pageApplicationsByKey = (pageApplications: number, scopeApplications: number) =>
  pageApplications <= Math.max(20, scopeApplications / 12);
/**
 * How far `query`'s names are read from the trigram index (list-entries.ts namesContaining: the smallest of its
 * trigrams' partitions): while they cost less than the compact entries of all. A name entry (about 300 bytes) is as
 * large as an application's compact entry and 0.6 of an environment's.
 */
export const nameReadLimits = (scope: ScopeCounts) => ({
  applications: Math.max(100, scope.applications),
  environments: Math.max(100, scope.environments * 0.6),
});
/** listApplicationsV2 reads an application `query`'s names no further than a quarter of the caller's applications. */
export const applicationNameReadLimit = (scope: ScopeCounts) => Math.max(100, scope.applications / 4);

/**
 * How far an `index` walk of the environments' id order surely goes (list-entries.ts environmentIdWalk), when only
 * the caller's scope thins it: to keep `needed` entries it passes about needed x (the organization's environments /
 * the scope's) of the index, ids spread evenly (random); the count of ids below a point errs by about its standard
 * deviation, so the walk surely passes 3 of them short of that and most likely ends within 3 past it. Undefined when
 * the page is within the first call's reach anyway.
 */
export function idWalkReach(needed: number, firstCall: number, scope: ScopeCounts, organization: ScopeCounts) {
  const entries = organization.environments;
  if (!scope.environments || !entries) return undefined;
  const passes = Math.min(entries, (needed * entries) / scope.environments);
  const share = passes / entries;
  const deviation = Math.sqrt(entries * share * (1 - share)) + 1;
  const surely = Math.max(0, passes - 3 * deviation);
  if (surely <= firstCall) return undefined;
  return { entries, surely: surely / entries, tail: Math.ceil(6 * deviation) };
}

/**
 * Deviations of shareSizedLimit's margin: as far as a walk read before its first call was sized so (a first call of
 * walkAhead, then walkWants' call of 1.25 times the rest over the share: about 1.65 deviations at a share of a tenth).
 */
export const SHARE_DEVIATIONS = 1.65;

/**
 * A walk's first call for `needed` entries of an index whose filters keep a share p of it (spread through the
 * order): n entries keep about n p, give or take the square root of n p (1 - p); n is the least that keeps them
 * SHARE_DEVIATIONS short of that (a shortfall costs a call more, never an entry), at most 1,000.
 */
export function shareSizedLimit(needed: number, share: number): number {
  if (share >= 1 || share <= 0) return needed;
  const spread = (SHARE_DEVIATIONS * Math.sqrt(1 - share)) / 2;
  const root = spread + Math.sqrt(spread * spread + needed);
  return Math.max(needed, Math.min(1000, Math.ceil((root * root) / share)));
}

/** How many names containing `query` the trigram index gave (or, before the names are read, their samples tell). */
export interface NameMatchCounts {
  applications: number;
  environments: number;
}

/**
 * The share of an environment order's index that a `query` walk keeps: the matches (each environment named like it,
 * and an application named like it with the organization's mean environments; the names are the organization's) of
 * the organization's environments, thinned by the caller's scope's share of them (the matches spread evenly).
 */
export function queryWalkShare(names: NameMatchCounts, scope: ScopeCounts, organization: ScopeCounts = scope): number {
  if (!organization.environments) return 1;
  const perApp = organization.applications ? organization.environments / organization.applications : 1;
  const matches = names.environments + names.applications * perApp;
  const scopeShare = Math.min(1, scope.environments / organization.environments);
  return Math.min(1, matches / organization.environments) * scopeShare;
}

/** Places a fenced walk reads short of and past where its page should end, whatever else may have moved. */
export const FENCE_SLACK = 2;

/**
 * How far a walk of an environments' order for `needed` entries surely goes and where it most likely ends
 * (list-entries.ts fencedWalk), in places of the walk, when the caller's scope (or a `query`: `scope` then counts its
 * matches) keeps a share q of the organization's environments spread through the order: it passes about needed / q,
 * the kept count among n passed erring by its standard deviation (the square root of n q (1 - q)), which is 1 / q
 * times as many places. The call past the segments reads 1 deviation beyond (`end`): each entry read past the page
 * costs its read units, one more call (when the page ends further) only a round trip. That call reads to `end`
 * whatever fence it starts from, so the segments go as far as a fence placed within it (`surely`: the places short of
 * `end` by a fence's possible drift) read nothing the walk would not. Fences learned when the organization had
 * `learnedEntries` environments sit at their places scaled by its growth since (`scale`), give or take a quarter of
 * the change up to there: stale fences cost speed (a segment another call), never exactness. Undefined when there is
 * nothing to walk.
 */
export function fenceReach(needed: number, scope: ScopeCounts, organization: ScopeCounts, learnedEntries: number) {
  const entries = organization.environments;
  if (!scope.environments || !entries || !learnedEntries) return undefined;
  const kept = Math.min(1, scope.environments / entries);
  const passes = Math.min(entries, needed / kept);
  const deviation = Math.sqrt(passes * kept * (1 - kept)) / kept;
  const drift = (Math.abs(entries - learnedEntries) * passes) / entries / 4;
  return {
    surely: Math.floor(passes + deviation - drift),
    end: Math.ceil(passes + deviation + FENCE_SLACK),
    scale: entries / learnedEntries,
  };
}

/**
 * fenceReach for a scope whose kept counts the fences hold (list-fences.ts Fences `kept`, learned when the organization
 * had as many environments as now): the walk surely passes every fence before which the scope kept fewer than
 * `needed`, and from the last of them it passes about the rest over the share kept up to the next fence (or over the
 * scope's share past the last), erring by its deviation in places as fenceReach's; at most to that next fence. Where
 * the scope's entries cluster in the order (a team's applications scanned on the same days), the counts tell what
 * its share over the whole order does not.
 */
export function keptReach(needed: number, counts: number[], spacing: number, share: number) {
  let passed = 0;
  while (passed < counts.length && counts[passed] < needed) passed++;
  const before = passed ? counts[passed - 1] : 0;
  const next = passed < counts.length ? counts[passed] : undefined;
  const kept = Math.min(1, Math.max(1 / spacing, next === undefined ? share : (next - before) / spacing));
  const rest = (needed - before) / kept;
  const deviation = Math.sqrt(rest * kept * (1 - kept)) / kept;
  const end = Math.ceil(passed * spacing + rest + deviation + FENCE_SLACK);
  return {
    surely: passed * spacing,
    end: next === undefined ? end : Math.min(end, (passed + 1) * spacing + FENCE_SLACK),
    scale: 1,
  };
}

/** Live applications and environments of the caller's buckets (the organization counters; list-entries.ts listScope). */
export interface ScopeCounts {
  applications: number;
  environments: number;
}

// ---- List Environments V2 (listEnvsV2)

type EnvSortField = (typeof ENV_SORT_FIELDS)[number];

/** The index each sort field's order is (sort value, then id): the walk needs nothing else. */
export const ENVIRONMENT_INDEX_ORDER: Partial<Record<EnvSortField, EnvironmentListOrder>> = {
  environmentName: 'name',
  scanDate: 'scanDate',
  environmentId: 'id',
  flightpathLastUpdated: 'id', // flight-path sessions are not recorded: every value is equal, the id decides
  scanDuration: 'duration',
  scanFindingsCounts: 'findings',
};

/** Sort fields whose value is the application's (its mapped repositories): walked as the id order plus the valued. */
const APPLICATION_VALUE_SORTS: readonly string[] = ['mappedRepositoryCount', 'thirtyDayCommitActivity'];

/**
 * Where a `set` plan's environments come from, most selective first: the applications' own partitions (appIds), the
 * id index (envIds), the name index (envs), `query`'s matches read whole (the trigram index's names, few), the status
 * index (lastScanStatus), the scan-date index (lastScanDate); or, for `query` in name order, the trigram index's
 * names themselves (only the page read whole).
 */
export type EnvironmentSetSource =
  | 'applications'
  | 'environmentIds'
  | 'environmentNames'
  | 'queryMatches'
  | 'lastScanStatus'
  | 'lastScanDate'
  | 'queryNames';

/** includeAppHealthStats: from the health aggregates of the caller's buckets, or summed over every listed environment. */
export type HealthSource = 'aggregates' | 'listed';

export type EnvironmentListPlan = { health?: HealthSource } & (
  | /** Nothing can match (hasFlightpathSession=true: no flight-path sessions are recorded). */
    { kind: 'empty' }
    /**
     * The order's index walked as far as the page (`applicationValue`: the id index, with the environments of
     * applications with mapped repositories read whole and sorted in memory), on whole items or compact entries; the
     * total from the scope's counters, or from `query`'s matches counted from the names the trigram index gave.
     */
  | {
      kind: 'index';
      order: EnvironmentListOrder | 'applicationValue';
      wholeItems: boolean;
      total: 'counters' | 'queryMatches';
    }
  /** The applications walked in name order, skipped whole by their environment (or match) counts. */
  | { kind: 'byApplication'; order: 'name'; total: 'counters' | 'queryMatches' }
  /** A filtered set read from its index, sorted in memory. */
  | { kind: 'set'; source: EnvironmentSetSource }
  /** The compact entries of every environment of the organization, filtered and sorted in memory. */
  | { kind: 'memory' }
);

export interface EnvironmentListStats extends ScopeCounts {
  /** The organization's applications and environments (the counters); the scope's when not given. */
  organization?: ScopeCounts;
  /** How many names containing `query` the trigram index gave; undefined when it was not read or gave up (too many). */
  nameMatches?: NameMatchCounts;
  /** Every application of the caller's with environments has a name containing `query`: it filters nothing. */
  everyMatch?: boolean;
  /** The health aggregates were read and are incomplete (an upgraded table before its backfill). */
  healthAggregatesIncomplete?: boolean;
}

/**
 * Filters beside `query` that a set plan serves (or the health figures, which read every listed environment): then
 * `query`'s matches are read whole or the set filtered, never walked or sorted on their names (queryStrategy).
 */
const filtersBesideQuery = (q: ListEnvironmentsV2Query): boolean =>
  Boolean(
    q.includeAppHealthStats ||
    q.lastScanStatus.length ||
    (q.lastScanDate && q.lastScanDate !== 'LAST_SCAN_DATE_UNSPECIFIED') ||
    q.appIds.length ||
    q.envIds.length ||
    q.envs.length ||
    q.hasFlightpathSession === true,
  );

/**
 * How a `query` with its names from the trigram index is served (undefined: no names, or another filter that the
 * set or memory plans serve):
 * - 'whole': the matches read whole and sorted in memory, while that costs less than walking an order for the page;
 * - 'names': environmentName order, sorted in memory on the names the index gave (the page alone read whole);
 * - 'walk': the order's index walked with the filter as far as the page, the total counted from the names.
 */
function queryStrategy(
  q: ListEnvironmentsV2Query,
  request: PageRequest,
  sortField: EnvSortField,
  stats: EnvironmentListStats,
): 'whole' | 'names' | 'walk' | undefined {
  const names = stats.nameMatches;
  if (!q.query || !names) return undefined;
  const { environments } = stats;
  const perApp = stats.applications ? environments / stats.applications : 1;
  const matches = names.environments + names.applications * perApp;
  if (filtersBesideQuery(q)) return isFew(matches, environments) ? 'whole' : undefined;
  if (sortField === 'environmentName' && isFew(names.applications * perApp, environments)) return 'names';
  // The walk reads about (end of page) / (the share it keeps) entries of the order's index, its first call sized by
  // that share (shareSizedLimit), at most all of them; then the page's environments by key. The matches read whole
  // are those named like it by key and a Query of each application named like it (which gives the page whole).
  const organization = stats.organization ?? stats;
  const share = queryWalkShare(names, stats, organization);
  const needed = walkAhead(request);
  const entries = Math.min(organization.environments, Math.max(needed / share, shareSizedLimit(needed, share)));
  const pageEntries = Math.max(0, Math.min(request.size, matches - request.page * request.size));
  const walk = entries * COMPACT_ENTRY_UNITS + pageEntries * WHOLE_READ_UNITS;
  const whole = names.environments * WHOLE_READ_UNITS + names.applications * applicationEnvironmentsUnits(perApp);
  return whole <= walk ? 'whole' : 'walk';
}

/** The filter whose index selects the set, most selective first (EnvironmentSetSource), if any. */
function environmentFilterSource(q: ListEnvironmentsV2Query, queryWhole: boolean): EnvironmentSetSource | undefined {
  if (q.appIds.length) return 'applications';
  if (q.envIds.length) return 'environmentIds';
  if (q.envs.length) return 'environmentNames';
  if (queryWhole) return 'queryMatches';
  if (q.lastScanStatus.length) return 'lastScanStatus';
  if (q.lastScanDate && q.lastScanDate !== 'LAST_SCAN_DATE_UNSPECIFIED') return 'lastScanDate';
  return undefined;
}

/** listEnvsV2's plan. With includeAppHealthStats, plan again if the aggregates it chose turn out incomplete. */
export function planEnvironmentList(
  q: ListEnvironmentsV2Query,
  request: PageRequest,
  stats: EnvironmentListStats,
): EnvironmentListPlan {
  if (q.hasFlightpathSession === true)
    return { kind: 'empty', ...(q.includeAppHealthStats ? { health: 'listed' } : {}) };
  const sortField: EnvSortField = q.sortField ?? 'environmentName';
  // `query` filters nothing when every application of the caller's matches it: the unfiltered list.
  const query = stats.everyMatch ? { ...q, query: undefined } : q;
  const text = !!query.query;
  const strategy = queryStrategy(query, request, sortField, stats);
  if (strategy === 'names') return { kind: 'set', source: 'queryNames' };
  const source = environmentFilterSource(query, strategy === 'whole');
  const aggregates = q.includeAppHealthStats && !source && !text && !stats.healthAggregatesIncomplete;
  const health: { health?: HealthSource } = q.includeAppHealthStats
    ? { health: aggregates ? 'aggregates' : 'listed' }
    : {};
  // Every environment is read anyway when the health figures are summed over them.
  const readsAll = q.includeAppHealthStats && !aggregates;
  if (!source && !readsAll && sortField === 'applicationName' && !text)
    return { kind: 'byApplication', order: 'name', total: 'counters', ...health };
  if (strategy === 'walk' && sortField === 'applicationName')
    return { kind: 'byApplication', order: 'name', total: 'queryMatches', ...health };
  const order =
    ENVIRONMENT_INDEX_ORDER[sortField] ??
    (APPLICATION_VALUE_SORTS.includes(sortField) ? 'applicationValue' : undefined);
  if (!source && !readsAll && (!text || strategy === 'walk') && order)
    return {
      kind: 'index',
      order,
      wholeItems: !text && request.page <= WHOLE_ITEM_PAGES && (order === 'name' || order === 'scanDate'),
      total: strategy === 'walk' ? 'queryMatches' : 'counters',
      ...health,
    };
  return source ? { kind: 'set', source, ...health } : { kind: 'memory', ...health };
}

// ---- List Applications V2 (listAppsV2)

type AppSortField = (typeof APP_SORT_FIELDS)[number];

/** The index order (value, then id) of each sort field that has one; the others are the application's repositories'. */
export const APPLICATION_INDEX_ORDER: Partial<Record<AppSortField, ApplicationListOrder>> = {
  applicationName: 'name',
  applicationId: 'id',
  applicationStatus: 'status',
};

export type ApplicationListPlan =
  /**
   * A few applications read whole by key, sorted in memory: those named (appIds), those whose names the trigram index
   * gave for `query`, or those with the one applicationStatus asked for.
   */
  | { kind: 'set'; source: 'applicationIds' | 'queryNames' | 'applicationStatus' }
  /**
   * Every application of the caller's, filtered and sorted in memory: compact entries (a `query` with many matches or
   * under three characters; the page then read whole), or whole items when a page is a good part of them.
   */
  | { kind: 'memory'; items: 'compact' | 'whole' }
  /**
   * The buckets' order walked as far as the page (`applicationValue`: the id order, with the applications with
   * mapped repositories read whole and sorted in memory); the total from the counters, or the status count.
   */
  | { kind: 'index'; order: ApplicationListOrder | 'applicationValue'; total: 'counters' | 'applicationStatus' };

export interface ApplicationListStats {
  /** Live applications of the caller's buckets (the organization counters). */
  applications: number;
  /** How many application names containing `query` the trigram index gave; undefined when not read or too many. */
  nameMatches?: number;
  /** applicationStatus with one status: how many of the caller's have it, and whether their ids were read (few). */
  status?: { count: number; selected: boolean };
}

/** listAppsV2's plan. */
export function planApplicationList(
  q: ListApplicationsV2Query,
  request: PageRequest,
  stats: ApplicationListStats,
): ApplicationListPlan {
  if (q.appIds.length) return { kind: 'set', source: 'applicationIds' };
  if (q.query) {
    if (stats.nameMatches !== undefined && isFew(stats.nameMatches, stats.applications))
      return { kind: 'set', source: 'queryNames' };
    return { kind: 'memory', items: 'compact' };
  }
  if (stats.status?.selected) return { kind: 'set', source: 'applicationStatus' };
  if (stats.applications <= WHOLE_READ_PAGES * request.size) return { kind: 'memory', items: 'whole' };
  const sortField: AppSortField = q.sortField ?? 'applicationName';
  return {
    kind: 'index',
    order: APPLICATION_INDEX_ORDER[sortField] ?? 'applicationValue',
    total: stats.status ? 'applicationStatus' : 'counters',
  };
}

// ---- Deprecated lists (docs/API.md, Deprecated lists)

export type DeprecatedApplicationListPlan =
  /** The named applications, or those with environments of the names asked for (the name index), sorted in memory. */
  | { kind: 'set'; source: 'applicationIds' | 'environmentNames' }
  /** The applications walked in order (every type, the caller's teams), skipped whole by their entry counts. */
  | { kind: 'byApplication'; order: 'name' | 'id' };

/** listApplications' plan. */
export function planDeprecatedApplicationList(q: ListApplicationsV1Query): DeprecatedApplicationListPlan {
  if (q.appIds.length) return { kind: 'set', source: 'applicationIds' };
  if (q.envs.length) return { kind: 'set', source: 'environmentNames' };
  return { kind: 'byApplication', order: q.sortField === 'id' ? 'id' : 'name' };
}

export type ListPlan =
  EnvironmentListPlan | ApplicationListPlan | DeprecatedApplicationListPlan | typeof DEPRECATED_ENVIRONMENT_LIST_PLAN;
