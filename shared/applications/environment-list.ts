import { getApplications } from './application-repository.ts';
import {
  environmentsOfApp,
  environmentsOfOrg,
  environmentsOfOrgQuery,
  getEnvironmentsByKeys,
} from './environment-repository.ts';
import {
  allEnvironmentEntries,
  applicationEntries,
  applicationEntriesQuery,
  applicationsCovering,
  bucketApplicationEntries,
  environmentEntries,
  environmentEntriesByIds,
  environmentEntriesNamed,
  environmentEntriesNamedQuery,
  environmentEntriesWithStatusQuery,
  environmentIdWalk,
  fencedWalk,
  fencedWalkFromStart,
  environmentEntriesQuery,
  environmentEntriesScannedBetween,
  listScope,
  listScopeReads,
  mergeOrdered,
  namesContaining,
  nameSampleReads,
} from './list-entries.ts';
import {
  APPLICATIONS_READ_BY_KEY,
  FIRST_CALL_ENTRIES,
  fenceReach,
  keptReach,
  idWalkReach,
  nameReadLimits,
  pageApplicationsByKey,
  planEnvironmentList,
  queryWalkShare,
  shareSizedLimit,
  type NameMatchCounts,
  type EnvironmentListPlan,
  type EnvironmentListStats,
  type EnvironmentSetSource,
  type ScopeCounts,
} from './list-plan.ts';
import { numberOrderKey } from '../db/sortable.ts';
import {
  fenceLearner,
  fencesKey,
  placedFences,
  readFences,
  scopeId,
  type FencedList,
  type FencedOrder,
} from './list-fences.ts';
import { recordListPlan } from '../context/request-scope.ts';
import { scopeHealthStats, type HealthStats } from './health.ts';
import {
  DAY,
  repositoryView,
  type CodeRepositoryRecord,
  canSeeTeamResource,
  type ListEntry,
  type ListScope,
  type CountedScope,
  type NameMatch,
  NO_SCAN_STATUS,
  type EnvironmentRecord,
  type LastScanStatus,
  type ApplicationRecord,
} from './model.ts';
import {
  collect,
  mapInParallel,
  prefetchFirstCall,
  type OperationReads,
  type PartitionQuery,
  type ReadOptions,
} from '../db/query.ts';
import { trigrams } from '../db/keys.ts';
import { codeRepositoriesRead, repositoriesByApplication } from './code-repository-store.ts';
import { visibleApplications } from './code-repository-views.ts';
import {
  ENV_SORT_FIELDS,
  LAST_SCAN_STATUSES,
  listEnvironmentsV2Query,
  type ListEnvironmentsV2Query,
} from './inputs.ts';
import {
  compareBy,
  concat,
  nameOrderKey,
  pageFromStream,
  pageOf,
  readAhead,
  v2Envelope,
  walkAhead,
  walkWants,
  v2PageRequest,
  type PageRequest,
  type SortDirection,
} from '../lists.ts';
import type { Caller, Membership } from '../context/caller.ts';

// List Environments V2 (listEnvsV2; docs/API.md, List Environments V2). Every order and filter is served from the
// compact list indexes (list-entries.ts, docs/DATA-MODEL.md Reads): an order an index keeps is walked only as far as
// the page; a filter with an index reads only what matches; whole items are read for the returned page alone. The
// planner (list-plan.ts; docs/API.md, How a list is planned) chooses how; executePlan below carries it out.

type EnvSortField = (typeof ENV_SORT_FIELDS)[number];
type EnvListQuery = ListEnvironmentsV2Query;

/** Filter values -> the stored status they select (UNSPECIFIED: never scanned; PENDING: no such stored state). */
const STORED_STATUS: Record<(typeof LAST_SCAN_STATUSES)[number], LastScanStatus | typeof NO_SCAN_STATUS | undefined> = {
  LAST_SCAN_STATUS_UNSPECIFIED: NO_SCAN_STATUS,
  LAST_SCAN_STATUS_SUCCESS: 'COMPLETED',
  LAST_SCAN_STATUS_ERRORED: 'ERROR',
  LAST_SCAN_STATUS_IN_PROGRESS: 'STARTED',
  LAST_SCAN_STATUS_PENDING: undefined,
};

const LAST_SCAN_DAYS = { LAST_24_HOURS: 1, LAST_7_DAYS: 7, LAST_14_DAYS: 14, LAST_30_DAYS: 30 } as const;

function lastScanDateMatches(
  filter: EnvListQuery['lastScanDate'],
  timestamp: number | undefined,
  now: number,
): boolean {
  if (!filter || filter === 'LAST_SCAN_DATE_UNSPECIFIED') return true;
  if (!timestamp) return false;
  const age = now - timestamp;
  return filter === 'OVER_30_DAYS' ? age > 30 * DAY : age <= LAST_SCAN_DAYS[filter] * DAY;
}

/** The filters, on a compact entry (or a whole environment record, which has the same fields). */
function entryKeep(scope: ListScope, q: EnvListQuery, appsMatchingQuery: Set<string> | undefined, now: number) {
  const text = q.query?.toLowerCase() ?? '';
  const names = q.envs.map((n) => n.toLowerCase());
  const statuses = q.lastScanStatus.map((s) => STORED_STATUS[s]);
  return (e: Omit<ListEntry, 'sortKey'>): boolean =>
    scope.keep(e) &&
    (q.appIds.length === 0 || q.appIds.includes(e.applicationId)) &&
    (q.envIds.length === 0 || q.envIds.includes(e.environmentId)) &&
    (names.length === 0 || names.includes(e.name.toLowerCase())) &&
    (statuses.length === 0 || statuses.includes(e.lastScanStatus ?? NO_SCAN_STATUS)) &&
    lastScanDateMatches(q.lastScanDate, e.lastScanTimestamp, now) &&
    q.hasFlightpathSession !== true && // no flight-path sessions are recorded
    (!text || e.name.toLowerCase().includes(text) || !!appsMatchingQuery?.has(e.applicationId));
}

/** The environments of `query` (from the name trigram index), when it has one and they are few (listEnvironmentsV2). */
interface QueryMatches {
  /** Environments whose name contains the text. */
  environments: { applicationId: string; environmentId: string }[];
  /** Applications whose name contains the text (every environment of theirs matches). */
  applications: Set<string>;
}

/** The environments of these applications: one Query each, at most 32 in flight (not thousands). */
const environmentsOfApps = async (appIds: string[]) =>
  (await mapInParallel(appIds, 32, (id) => environmentsOfApp(id))).flat();

/** The environments `query` selects, whole: those named like it and those of the applications named like it. */
async function environmentsMatching(orgId: string, matches: QueryMatches): Promise<EnvironmentRecord[]> {
  const [named, ofApps] = await Promise.all([
    getEnvironmentsByKeys(matches.environments),
    environmentsOfApps([...matches.applications]),
  ]);
  const byId = new Map(
    [...named, ...ofApps]
      .filter((env) => !env.deleting && env.organizationId === orgId)
      .map((env) => [env.environmentId, env]),
  );
  return [...byId.values()];
}

/**
 * The environments of a `set` plan's source (list-plan.ts EnvironmentSetSource), reading only those, with the
 * filters applied; `queryNames` only in environmentName order (fromNames).
 */
async function setEntries(source: EnvironmentSetSource, c: ListContext): Promise<Entry[]> {
  const { orgId, q, now } = c;
  const kept = (list: Promise<Entry[]>) => list.then((entries) => entries.filter(c.keep));
  switch (source) {
    case 'applications':
      // Another organization's application ids select nothing (its partitions are not this organization's indexes).
      return kept(
        Promise.all(q.appIds.map((id) => environmentsOfApp(id))).then((lists) =>
          lists.flat().filter((env) => env.organizationId === orgId),
        ),
      );
    case 'environmentIds':
      return kept(environmentEntriesByIds(orgId, q.envIds));
    case 'environmentNames':
      return kept(
        Promise.all(
          [...new Set(q.envs.map((n) => n.toLowerCase()))].map((n) => environmentEntriesNamed(orgId, n)),
        ).then((l) => l.flat()),
      );
    case 'queryMatches':
      return kept(
        environmentsMatching(orgId, {
          environments: c.envNames!.map((m) => ({ applicationId: m.applicationId, environmentId: m.environmentId! })),
          applications: c.appsMatchingQuery!,
        }),
      );
    case 'lastScanStatus': {
      return kept(Promise.all(storedStatuses(q).map((s) => fencedStatusEntries(c, s))).then((l) => l.flat()));
    }
    case 'lastScanDate': {
      const filter = q.lastScanDate as Exclude<EnvListQuery['lastScanDate'], 'LAST_SCAN_DATE_UNSPECIFIED' | undefined>;
      const [from, to] =
        filter === 'OVER_30_DAYS' ? [1, now - 30 * DAY] : [now - LAST_SCAN_DAYS[filter] * DAY, now + 365 * DAY * 100];
      return kept(environmentEntriesScannedBetween(orgId, from, to));
    }
    case 'queryNames':
      return fromNames(c);
  }
}

/** Mapped repositories of each application (code-repository-store.ts), for the repository fields and sorts. */
type RepositoriesByApp = Map<string, CodeRepositoryRecord[]>;
const commitActivity = (repos: CodeRepositoryRecord[] = []) => repos.reduce((sum, repo) => sum + repo.commitCount, 0);

/** Per-application sort values (repository sorts): 0 for applications without mapped repositories. */
function applicationValue(field: EnvSortField, repos: RepositoriesByApp): ((appId: string) => number) | undefined {
  if (field === 'mappedRepositoryCount') return (appId) => repos.get(appId)?.length ?? 0;
  if (field === 'thirtyDayCommitActivity') return (appId) => commitActivity(repos.get(appId));
  return undefined;
}

/** The in-memory form of every order (the same values the indexes hold), for filtered sets. */
function entrySortValue(
  field: EnvSortField,
  repos: RepositoriesByApp,
  appNames: Map<string, string>,
): (e: Omit<ListEntry, 'sortKey'>) => string | number {
  const perApp = applicationValue(field, repos);
  if (perApp) return (e) => perApp(e.applicationId);
  switch (field) {
    case 'environmentName':
      return (e) => nameOrderKey(e.name, e.environmentId);
    case 'scanDate':
      return (e) => numberOrderKey(e.lastScanTimestamp, e.environmentId);
    case 'applicationName':
      return (e) => nameOrderKey(appNames.get(e.applicationId) ?? '', e.applicationId);
    case 'scanDuration':
      return (e) => e.lastScanDuration ?? 0;
    case 'scanFindingsCounts':
      return (e) => e.lastScanTotalUntriaged ?? 0;
    case 'environmentId':
      return (e) => e.environmentId;
    default:
      return () => 0; // flight-path sessions are not recorded: the id decides
  }
}

type Entry = Omit<ListEntry, 'sortKey'>;
interface EntryPage {
  entries: Entry[];
  totalCount: number;
  hasNext: boolean;
  /** includeAppHealthStats: every listed environment, when the plan had to read them all anyway. */
  all?: Entry[];
  /** The page's applications, when the plan read them beside its environments (byApplicationName). */
  applications?: PageApplication[];
}

/**
 * Repository sorts (the value is the application's): environments of applications without mapped repositories
 * (value 0) come in id order from the id index; those of mapped applications, read whole (they are what the value
 * sets apart: as many as the repositories map), in (value, id) order after (ASC) or before (DESC) them.
 */
async function byApplicationValue(
  orgId: string,
  value: (appId: string) => number,
  repos: RepositoriesByApp,
  keep: (e: Entry) => boolean,
  sortDir: SortDirection,
  walkLimit: number,
  wanted: ReadOptions['wanted'],
): Promise<AsyncIterable<Entry>> {
  const mapped = [...repos.keys()].filter((appId) => value(appId) !== 0);
  const valued: Entry[] = (await Promise.all(mapped.map((appId) => environmentsOfApp(appId)))).flat().filter(keep);
  valued.sort(
    compareBy(
      (e) => value(e.applicationId),
      (e) => e.environmentId,
      sortDir,
    ),
  );
  const mappedIds = new Set(mapped);
  const zeros = filterStream(
    environmentEntries(orgId, 'id', sortDir === 'ASC', walkLimit, undefined, { prefetchedFirstCall: true, wanted }),
    (e) => !mappedIds.has(e.applicationId),
  );
  return sortDir === 'ASC' ? concat(zeros, valued) : concat(valued, zeros);
}

/** A `query`'s matches among the caller's environments, from the names it matched (queryMatchCounts). */
interface MatchCounts {
  total: number;
  /** Matching environments per application. */
  ofApplication: Map<string, number>;
}

/**
 * sortField applicationName, filtered by type and team (and `query`, by the matches per application): the order is
 * (application name, application id, environment id), so the applications are walked by name (compact, the caller's
 * buckets merged) and skipped whole by their environment (or match) counts; only the applications on the page have
 * their environments read.
 */
async function byApplicationName(
  { scope, request, applications }: ListContext,
  forward: boolean,
  apps: AsyncIterable<ListEntry>,
  matches?: MatchCounts & { keep: (e: Entry) => boolean },
): Promise<EntryPage> {
  const total = matches ? matches.total : scope.counts.environments;
  const start = request.page * request.size;
  const count = (app: ListEntry) =>
    !scope.keep(app) ? 0 : matches ? (matches.ofApplication.get(app.applicationId) ?? 0) : (app.environmentCount ?? 0);
  const onPage = await applicationsCovering(apps, count, start, request.size);
  // The page's applications are known: read beside their environments.
  const [envs, pageApps] = await Promise.all([
    Promise.all(
      onPage.map(({ entry }) =>
        environmentsOfApp(entry.applicationId).then((list) => (matches ? list.filter(matches.keep) : list)),
      ),
    ), // in id order (ENV#<id>)
    applications.read(onPage.map(({ entry }) => entry)),
  ]);
  const entries = onPage.flatMap(({ skip, take }, i) =>
    (forward ? envs[i] : envs[i].reverse()).slice(skip, skip + take),
  );
  return { entries, totalCount: total, hasNext: start + request.size < total, applications: pageApps };
}

/** Environment counts of these applications of the scope: whole when few, else the scope's compact entries. */
async function environmentCounts(orgId: string, scope: ListScope, appIds: string[]): Promise<Map<string, number>> {
  const wanted = new Set(appIds);
  const apps =
    appIds.length <= APPLICATIONS_READ_BY_KEY
      ? (await getApplications(appIds)).filter((app) => !app.deleting && app.organizationId === orgId)
      : (
          await Promise.all(
            scope.buckets.map((b) => bucketApplicationEntries(orgId, b, ['applicationId', 'environmentCount'])),
          )
        ).flat();
  return new Map(
    apps.filter((app) => wanted.has(app.applicationId)).map((app) => [app.applicationId, app.environmentCount ?? 0]),
  );
}

/**
 * The matches of a `query` among the caller's environments, counted from the names the trigram index gave: each
 * environment named like it, and every environment of the applications named like it (their environment counts).
 */
async function queryMatchCounts(
  orgId: string,
  scope: ListScope,
  appNames: NameMatch[],
  envNames: NameMatch[],
): Promise<MatchCounts> {
  // The named applications' counts are read beside the scope's check of them, and those outside the scope dropped.
  const namedApps = [...new Set(appNames.map((m) => m.applicationId))];
  const [appKeep, counts] = await Promise.all([scope.applicationKeep(), environmentCounts(orgId, scope, namedApps)]);
  const matchedApps = namedApps.filter(appKeep);
  const ofApplication = new Map(matchedApps.flatMap((id) => (counts.has(id) ? [[id, counts.get(id)!]] : [])));
  const byName = new Set(matchedApps);
  for (const m of envNames)
    if (!byName.has(m.applicationId) && appKeep(m.applicationId))
      ofApplication.set(m.applicationId, (ofApplication.get(m.applicationId) ?? 0) + 1);
  return { total: [...ofApplication.values()].reduce((sum, n) => sum + n, 0), ofApplication };
}

/**
 * `query` in environmentName order from the names the trigram index gave: the environments named like it and those
 * of the (few) applications named like it (read whole), in the caller's scope; only the page's items are read
 * (pageItems).
 */
async function fromNames({ orgId, scope, appNames, envNames }: ListContext): Promise<Entry[]> {
  // The named applications' environments are read beside the scope's check of them (they are few: a set), and
  // those of applications outside the scope dropped.
  const namedApps = [...new Set(appNames!.map((m) => m.applicationId))];
  const [appKeep, environments] = await Promise.all([scope.applicationKeep(), environmentsOfApps(namedApps)]);
  const matchedApps = new Set(namedApps.filter(appKeep));
  const ofApps = environments.filter(
    (env) => matchedApps.has(env.applicationId) && !env.deleting && env.organizationId === orgId && scope.keep(env),
  );
  const named = envNames!
    .filter((m) => !matchedApps.has(m.applicationId) && appKeep(m.applicationId))
    .map((m) => ({ applicationId: m.applicationId, environmentId: m.environmentId!, name: m.name }) as Entry);
  return [...ofApps, ...named];
}

/** What the executors of a plan read from: the request, the caller's scope and what the planning read. */
interface ListContext {
  orgId: string;
  q: EnvListQuery;
  request: PageRequest;
  sortField: EnvSortField;
  sortDir: SortDirection;
  now: number;
  scope: ListScope;
  repos: RepositoriesByApp;
  /** The filters, on a compact entry (entryKeep). */
  keep: (e: Entry) => boolean;
  /** `query`'s names from the trigram index (undefined: not read, or too many). */
  appNames?: NameMatch[];
  envNames?: NameMatch[];
  /** The applications whose name contains `query`. */
  appsMatchingQuery?: Set<string>;
  /** Reads the page's applications (pageApplications). */
  applications: PageApplications;
  /** Writes of what the plan's walks learned (list-fences.ts), made beside the page's reads. */
  learners: (() => Promise<void>)[];
  /** `query`'s walk whose first call was made when the name samples were read (queryWalkCall). */
  speculated?: SpeculatedWalk;
}

// ---- One executor per plan kind (list-plan.ts EnvironmentListPlan)

/** `index`: the order's index walked as far as the page, filtering; the total from the counters or the matches. */
async function walkIndex(plan: Extract<EnvironmentListPlan, { kind: 'index' }>, c: ListContext): Promise<EntryPage> {
  const { orgId, request, sortDir } = c;
  const forward = sortDir === 'ASC';
  // The first call asks for everything up to the end of the page, each further one for what the walk still wants.
  const walkLimit = walkAhead(request);
  // The caller's scope (types, teams) keeps its share of the organization's environments, `query` its matches' share
  // of those: that sizes the calls.
  const share = walkShare(plan, c);
  const wants = walkWants(request, c.keep, share);
  // Whole items are copied by the name and scan-date indexes alone (list-plan.ts WHOLE_ITEM_PAGES).
  const { order } = plan;
  // The walk's first call may come from the request's prefetch (firstWalkCall).
  const options = { prefetchedFirstCall: true, wanted: wants.wanted };
  const value = applicationValue(c.sortField, c.repos)!;
  const fenced = walkFencedList(plan, request, c.q);
  // A walk that teamIds thins: its first call sized by the scope's share (speculated when the counters were read); one
  // that `query` thins, by its matches' share (speculated when the name samples were read: queryWalkCall).
  const firstLimit = walkSizedByScope(plan, request, c.q)
    ? scopeSizedLimit(request, c.scope)
    : plan.total === 'queryMatches'
      ? c.speculated?.walk?.order === order
        ? c.speculated.walk.limit
        : shareSizedLimit(walkLimit, share)
      : walkLimit;
  const stream =
    order === 'applicationValue'
      ? await byApplicationValue(orgId, value, c.repos, c.keep, sortDir, walkLimit, wants.wanted)
      : fenced && order !== 'id'
        ? plan.total === 'queryMatches'
          ? await queryFencedWalk(c, fenced, order, firstLimit, options)
          : await fencedIndexWalk(c, fenced, order, walkLimit, options)
        : plan.wholeItems && (order === 'name' || order === 'scanDate')
          ? environmentsOfOrg(orgId, order, forward, firstLimit, true, options)
          : order === 'id' && plan.total === 'counters'
            ? environmentIdWalk(orgId, forward, walkLimit, idReach(walkLimit, c.scope), options)
            : environmentEntries(orgId, order, forward, firstLimit, undefined, options);
  // The matches' count (a `query`: from the names it matched), read beside the walk.
  const [streamed, matchCount] = await Promise.all([
    pageFromStream<Entry>(stream, wants.keep, request, c.applications.onPageEntry),
    plan.total === 'queryMatches'
      ? queryMatchCounts(orgId, c.scope, c.appNames!, c.envNames!).then((m) => m.total)
      : undefined,
  ]);
  // Only the type and team filters: the counters of the caller's buckets give the total.
  const totalCount = streamed.exhausted ? streamed.seen : (matchCount ?? c.scope.counts.environments);
  return { entries: streamed.items, totalCount, hasNext: streamed.hasNext };
}

/**
 * The share of the order's index an `index` walk keeps: the caller's scope's share of the organization's
 * environments, and for `query` its matches' share of those (list-plan.ts queryWalkShare, from the names).
 */
function walkShare(plan: Extract<EnvironmentListPlan, { kind: 'index' }>, c: ListContext): number {
  const { counts, organization } = c.scope;
  if (plan.total === 'queryMatches' && c.appNames && c.envNames)
    return queryWalkShare({ applications: c.appNames.length, environments: c.envNames.length }, counts, organization);
  return counts.environments / organization.environments;
}

/**
 * How far a walk of the id order for `needed` entries surely goes (list-plan.ts idWalkReach), past what its first
 * call reads: that DynamoDB page holds about 1 MB of entries (about 2,500; DynamoDB Local about 850), at most what
 * it asks for.
 */
const idReach = (needed: number, scope: ListScope) =>
  idWalkReach(needed, Math.min(needed, FIRST_CALL_ENTRIES), scope.counts, scope.organization);

/**
 * An `index` plan's walk of an order that a teamIds filter thins (no `query`, not the id order nor a fenced deep
 * page): its first call cannot be the page's (queryStringReads' prefetch of walkAhead entries keeps about the
 * scope's share of them, and its next call waits on the hidden applications' ids), so it is sized by the scope's
 * share once the counters are read (scopeSizedLimit) and made beside those ids (listEnvironmentsV2, onBuckets).
 */
function walkSizedByScope(plan: EnvironmentListPlan, request: PageRequest, q: EnvListQuery): boolean {
  if (plan.kind !== 'index' || plan.total !== 'counters' || q.query || q.teamIds.length === 0) return false;
  return plan.order !== 'id' && plan.order !== 'applicationValue' && !walkFencedList(plan, request, q);
}

/**
 * A walk's first call for walkAhead entries of the scope's (a share of the organization's environments, spread
 * through the order): list-plan.ts shareSizedLimit.
 */
function scopeSizedLimit(request: PageRequest, scope: Pick<ListScope, 'counts' | 'organization'>): number {
  const share = scope.organization.environments ? scope.counts.environments / scope.organization.environments : 1;
  return shareSizedLimit(walkAhead(request), share);
}

/** A `query`'s walk passes about walkAhead / (the share it keeps): fenced from this many entries (a quarter or less). */
const QUERY_FENCED_WALK = FIRST_CALL_ENTRIES / 4;

/**
 * The fenced list (list-fences.ts) an `index` plan walks: a deep page (past what a first call reads) of an order's
 * compact entries (every order but the id order, whose walk cuts the id space) which only the caller's scope thins;
 * or, with `query`, a page past QUERY_FENCED_WALK (the walk passes about walkAhead / the share the text keeps,
 * known only once its names are read), but in name order, which `query`'s names mostly serve (queryNames).
 */
function walkFencedList(plan: EnvironmentListPlan, request: PageRequest, q: EnvListQuery): FencedList | undefined {
  if (plan.kind !== 'index' || plan.wholeItems || plan.order === 'id' || plan.order === 'applicationValue')
    return undefined;
  const list: FencedList = `envs-${plan.order}-${q.sortDir === 'DESC' ? 'desc' : 'asc'}`;
  if (plan.total === 'queryMatches')
    return plan.order !== 'name' && walkAhead(request) > QUERY_FENCED_WALK ? list : undefined;
  return !q.query && walkAhead(request) > FIRST_CALL_ENTRIES ? list : undefined;
}

/**
 * A deep page's walk of an order with the order's learned fences (list-entries.ts fencedWalk), which it learns again
 * when they are missing or off (fenceLearner, written beside the page's reads).
 */
async function fencedIndexWalk(
  c: ListContext,
  list: FencedList,
  order: FencedOrder,
  walkLimit: number,
  options: ReadOptions,
): Promise<AsyncIterable<Entry>> {
  const forward = c.sortDir === 'ASC';
  const stored = await readFences(c.orgId, list);
  const { counts, organization } = c.scope;
  // A scope that thins the list learns (and uses) what it kept up to each fence.
  const scope = counts.environments < organization.environments ? scopeId(c.scope.buckets) : undefined;
  const kept = scope && stored?.kept?.scope === scope && stored.entries === organization.environments;
  const reach = !stored
    ? undefined
    : kept
      ? keptReach(walkLimit, stored.kept!.counts, stored.spacing, counts.environments / organization.environments)
      : fenceReach(walkLimit, counts, organization, stored.entries);
  const learner = fenceLearner(c.orgId, list, stored, forward, scope ? { id: scope, keep: c.scope.keep } : undefined);
  c.learners.push(() => learner.learn(organization.environments));
  const query = environmentEntriesQuery(c.orgId, order, forward, walkLimit);
  const fences = reach ? placedFences(stored, reach.scale) : [];
  return learner.watch(fencedWalk(query, fences, reach ?? { surely: 0 }, options));
}

/**
 * A `query`'s walk of an order past QUERY_FENCED_WALK with the order's learned fences, which it learns as
 * fencedIndexWalk does (every entry before the page is read, kept or not: the fences of the unfiltered order): the one
 * queryWalkCall started when the name samples were read, when it walks this order; else started now, on the names.
 */
async function queryFencedWalk(
  c: ListContext,
  list: FencedList,
  order: FencedOrder,
  firstLimit: number,
  options: ReadOptions,
): Promise<AsyncIterable<Entry>> {
  const speculated = c.speculated?.walk?.order === order ? c.speculated.walk.fenced : undefined;
  const { counts, organization } = c.scope;
  const walk =
    speculated ??
    startQueryFencedWalk(c.orgId, list, order, c.request, firstLimit, counts, organization, await namedMatches(c));
  const { stream, learner, wanted } = await walk;
  wanted.set(options.wanted);
  c.learners.push(() => learner.learn(organization.environments));
  return stream;
}

/**
 * The caller's environments that `query`'s names match: those named like it, and the applications named like it at
 * the scope's environments per application.
 */
async function namedMatches(c: ListContext): Promise<number> {
  const appKeep = await c.scope.applicationKeep();
  const { counts } = c.scope;
  const perApp = counts.applications ? counts.environments / counts.applications : 1;
  const namedApps = new Set(c.appNames!.map((m) => m.applicationId).filter(appKeep));
  const named = c.envNames!.filter((m) => !namedApps.has(m.applicationId) && appKeep(m.applicationId)).length;
  return Math.min(counts.environments, named + namedApps.size * perApp);
}

/** How far name counts estimated from the trigram samples err either way (namesContaining). */
const NAME_ESTIMATE_ERROR = 1 / 7;

/** A `query`'s fenced walk once started (startQueryFencedWalk): its entries, its learner, its later calls' sizing. */
type StartedFencedWalk = Promise<{
  stream: AsyncIterable<Entry>;
  learner: ReturnType<typeof fenceLearner>;
  wanted: { set: (wanted: ReadOptions['wanted']) => void };
}>;

/**
 * A `query`'s fenced walk for about `matches` of the scope's environments (`estimated` from the name samples, or
 * counted from the names), its reads started now: it cannot be
 * prefetched (the plan needs the names), so it reads from the partition's start (fencedWalkFromStart), the ranges up
 * to the last fence its share surely passes side by side beside the call past it. The reach only sizes the reads:
 * every entry is read in order, whatever the estimate.
 */
async function startQueryFencedWalk(
  orgId: string,
  list: FencedList,
  order: FencedOrder,
  request: PageRequest,
  firstLimit: number,
  counts: ScopeCounts,
  organization: ScopeCounts,
  matches: number,
  estimated = false,
): StartedFencedWalk {
  const forward = !list.endsWith('-desc');
  const stored = await readFences(orgId, list);
  const learner = fenceLearner(orgId, list, stored, forward);
  const reachOf = (environments: number) =>
    stored && fenceReach(walkAhead(request), { ...counts, environments }, organization, stored.entries);
  // Matches estimated from the name samples err by about a seventh: the call past the fences reads as far as the
  // fewest they may be would need (a round trip less for a few more entries).
  const fewest = reachOf(estimated ? matches * (1 - NAME_ESTIMATE_ERROR) : matches);
  const reach = fewest && { ...reachOf(matches)!, end: fewest.end };
  const query = environmentEntriesQuery(orgId, order, forward, firstLimit);
  const fences = reach ? placedFences(stored, reach.scale) : [];
  let later: ReadOptions['wanted'];
  const options = { wanted: (read: number) => later?.(read) };
  const stream = started(learner.watch(fencedWalkFromStart(query, fences, reach ?? { surely: 0 }, options)));
  return { stream, learner, wanted: { set: (wanted) => void (later = wanted) } };
}

/**
 * The environments whose last scan has this status, in name order: the status index's partition, its first call
 * from the request's prefetch, the rest between its learned fences side by side (fencedStatusEntries learns them).
 */
async function fencedStatusEntries(c: ListContext, status: string): Promise<Entry[]> {
  const list: FencedList = `envs-status-${status}`;
  const stored = await readFences(c.orgId, list);
  const learner = fenceLearner(c.orgId, list, stored, true);
  c.learners.push(() => learner.learn(c.scope.organization.environments));
  const query = environmentEntriesWithStatusQuery(c.orgId, status);
  const walk = fencedWalk(query, placedFences(stored), { surely: Infinity }, { prefetchedFirstCall: true });
  return collect(learner.watch(walk));
}

/** `byApplication`: the applications walked by name, skipped whole by their environment (or match) counts. */
async function walkApplications(
  plan: Extract<EnvironmentListPlan, { kind: 'byApplication' }>,
  c: ListContext,
): Promise<EntryPage> {
  const forward = c.sortDir === 'ASC';
  // The caller's buckets merged in name order; the walk always makes its first calls: made now, beside the count of
  // `query`'s matches.
  // (With `query`, their first calls may come from the request's speculation of them: queryWalkCall.)
  const limit = applicationWalkLimit(c.request);
  const apps = started(
    mergeOrdered(
      c.scope.buckets.map((b) =>
        applicationEntries(c.orgId, b, 'name', forward, limit, undefined, { prefetchedFirstCall: true }),
      ),
      forward,
    ),
  );
  if (plan.total === 'counters') return byApplicationName(c, forward, apps);
  const matches = await queryMatchCounts(c.orgId, c.scope, c.appNames!, c.envNames!);
  return byApplicationName(c, forward, apps, { ...matches, keep: c.keep });
}

/** Applications a `byApplication` walk asks each bucket for in its first call. */
const applicationWalkLimit = (request: PageRequest) => Math.min(1000, readAhead(request));

/** The items of a stream whose first item is asked for now (its first reads start at once). */
function started<T>(items: AsyncIterable<T>): AsyncIterable<T> {
  const iterator = items[Symbol.asyncIterator]();
  const first = iterator.next();
  first.catch(() => undefined); // awaited by whoever reads the stream
  return {
    async *[Symbol.asyncIterator]() {
      for (let next = await first; !next.done; next = await iterator.next()) yield next.value;
    },
  };
}

/** `set` and `memory`: the selected environments sorted in memory (the indexes' encodings, db/sortable.ts). */
async function sortedPage(entries: Entry[], c: ListContext, apps?: PageApplication[]): Promise<EntryPage> {
  // sortField applicationName: the names of the entries' applications, from those read already (apps) if any.
  const appNames =
    c.sortField !== 'applicationName'
      ? new Map<string, string>()
      : apps
        ? new Map(apps.map((app) => [app.applicationId, app.name]))
        : await applicationNames(entries);
  entries.sort(compareBy(entrySortValue(c.sortField, c.repos, appNames), (e) => e.environmentId, c.sortDir));
  const { items, totalCount, hasNext } = pageOf(entries, c.request);
  return { entries: items, totalCount, hasNext, all: entries };
}

/**
 * A `queryMatches` or `queryNames` set's applications (those named like `query` and those of the environments named
 * like it), read by key beside their environments when no more than a page's worth (request.size): the page's
 * applications are among them, so pageItems does not wait for the page to read them (a round trip less), and a sort
 * by application name takes their names (sortedPage: no BatchGetItem of the set's applications before the sort). What
 * they cost beyond the page's own (half a unit each of those not on the page) is at most half a unit per entry of the
 * page. A queryNames set's are read so only while pageApplicationsByKey holds (a page of 1,000 of `query=stage`'s
 * environments has about 200 applications: the compact entries of the scope's cost less).
 */
function matchedApplications(c: ListContext, source: EnvironmentSetSource): Promise<PageApplication[]> | undefined {
  const appIds = new Set([...c.appsMatchingQuery!, ...c.envNames!.map((m) => m.applicationId)]);
  const few = appIds.size > 0 && appIds.size <= c.request.size;
  // A queryNames page's applications read by key only while pageApplications would too (else compact entries).
  const byKey = source !== 'queryNames' || pageApplicationsByKey(appIds.size, c.scope.counts.applications);
  return few && byKey ? getApplications([...appIds]) : undefined;
}

function executePlan(plan: EnvironmentListPlan, c: ListContext): Promise<EntryPage> {
  switch (plan.kind) {
    case 'empty':
      return Promise.resolve({ entries: [], totalCount: 0, hasNext: false });
    case 'index':
      return walkIndex(plan, c);
    case 'byApplication':
      return walkApplications(plan, c);
    case 'set': {
      const apps =
        plan.source === 'queryMatches' || plan.source === 'queryNames'
          ? matchedApplications(c, plan.source)
          : undefined;
      return Promise.all([setEntries(plan.source, c), apps]).then(async ([entries, read]) => {
        const page = await sortedPage(entries, c, read);
        return read ? { ...page, applications: read } : page;
      });
    }
    case 'memory':
      // The organization's compact entries; a `query` whose names the trigram index did not give (too many, or
      // under three characters) lands here.
      return allEnvironmentEntries(c.orgId, c.scope.organization.environments).then((entries) =>
        sortedPage(entries.filter(c.keep), c),
      );
  }
}

/**
 * listEnvironmentsV2's own reads in its first round trip, beside the rate limit and the authorization: listScope's
 * first reads (the buckets' counters, the applications being deleted), the organization's repositories (every
 * environment view shows its application's), `query`'s name samples (nameSampleReads: its names are read whenever
 * it is given) and what the query string alone decides of the plan (queryStringReads). The list takes them only once
 * the caller is authorized (listEnvironmentsV2).
 */
export const environmentListReads: OperationReads = ({ ids, query }) => {
  if (!ids.orgId) return {};
  const q = listEnvironmentsV2Query.safeParse(query).data;
  const decided = queryStringReads(ids.orgId, q);
  const text = q?.query?.toLowerCase();
  const names = text ? nameSampleReads(ids.orgId, ['APP', 'ENV'], text) : {};
  return {
    items: decided.fencedLists.map((list) => fencesKey(ids.orgId!, list)),
    queries: [...listScopeReads(ids.orgId), codeRepositoriesRead(ids.orgId), ...(names.queries ?? [])],
    firstCalls: [...(decided.walk ? [decided.walk] : []), ...decided.setCalls, ...(names.firstCalls ?? [])],
  };
};

/** A walk's first call read beside the authorization for a plan that may not be made: for pages up to 100 entries. */
const SPECULATED_WALK = 101;

/** What a query string alone decides of the plan, so read beside the authorization (queryStringReads). */
interface QueryStringReads {
  /** The first Query of an `index` plan's walk (walkIndex). */
  walk?: PartitionQuery;
  /** The first Query of each partition a `set` plan reads (setEntries). */
  setCalls: PartitionQuery[];
  /** The fenced lists (list-fences.ts) whose fences the plan reads. */
  fencedLists: FencedList[];
}

/**
 * The reads the query string alone decides, planned once without `query` (whose plan needs the trigram index's
 * names) and without any figure of the scope (the planner reads none then: list-plan.ts). A query string that does
 * not parse (`q` undefined) decides nothing: the request answers 400. A `query` under three characters (no trigram)
 * filters nothing when every application of the caller's matches it (`query=pp` on `app-...`: everyMatch), and the
 * plan is then the one without it: its walk's first call is read too, for nothing when some application does not
 * match (a page's worth, at most SPECULATED_WALK entries, beside the compact entries of every environment that the
 * plan then reads).
 */
export function queryStringReads(orgId: string, q: EnvListQuery | undefined): QueryStringReads {
  if (!q) return { setCalls: [], fencedLists: [] };
  const request = v2PageRequest(q.page, q.pageToken, q.pageSize);
  if (q.query && trigrams(q.query.toLowerCase()).length > 0)
    return { setCalls: [], fencedLists: queryWalkFences(q, request) };
  const short = !!q.query;
  const unfiltered = short ? { ...q, query: undefined } : q;
  const plan = planEnvironmentList(unfiltered, request, { applications: 0, environments: 0 });
  const walked = walkFencedList(plan, request, unfiltered);
  const walks =
    plan.kind === 'index' &&
    !walkSizedByScope(plan, request, unfiltered) &&
    (!short || walkAhead(request) <= SPECULATED_WALK);
  return {
    walk: walks ? firstWalkCall(orgId, unfiltered, plan, request) : undefined,
    setCalls: firstSetCalls(orgId, q),
    fencedLists:
      plan.kind === 'set' && plan.source === 'lastScanStatus'
        ? storedStatuses(q).map((status): FencedList => `envs-status-${status}`)
        : walked && !short
          ? [walked]
          : [],
  };
}

/**
 * The fences a `query`'s walk would read (walkFencedList), read beside the authorization for a plan made only once its
 * names are read: half a read unit for nothing when the plan is another (its matches read whole, or few enough that
 * the walk stays within its first call's reach). None when another filter, or the health figures, leave no walk.
 */
function queryWalkFences(q: EnvListQuery, request: PageRequest): FencedList[] {
  if (q.includeAppHealthStats) return [];
  const plan = planEnvironmentList({ ...q, query: undefined }, request, { applications: 0, environments: 0 });
  if (plan.kind !== 'index') return [];
  const walked = walkFencedList({ ...plan, wholeItems: false, total: 'queryMatches' }, request, q);
  return walked ? [walked] : [];
}

/**
 * The first Query of each partition a `set` plan reads (setEntries): the name index's prefix of each name of `envs`
 * (the most selective filter after ids), or the status index's partition of each `lastScanStatus`.
 */
function firstSetCalls(orgId: string, q: EnvListQuery): PartitionQuery[] {
  if (q.hasFlightpathSession === true || q.appIds.length || q.envIds.length) return [];
  if (q.envs.length)
    return [...new Set(q.envs.map((n) => n.toLowerCase()))].map((n) => environmentEntriesNamedQuery(orgId, n));
  if (!q.lastScanStatus.length) return [];
  return storedStatuses(q).map((status) => environmentEntriesWithStatusQuery(orgId, status));
}

/** The stored statuses a lastScanStatus filter selects (PENDING: none). */
const storedStatuses = (q: EnvListQuery) =>
  [...new Set(q.lastScanStatus.map((s) => STORED_STATUS[s]))].filter((s) => s !== undefined);

/**
 * The first Query of an `index` plan's walk (walkIndex), which the walk almost always makes: it is read for nothing
 * (half a read unit for a page of 10 compact entries) when with includeAppHealthStats the aggregates turn out
 * incomplete (an upgraded table before its backfill), or when a repository sort's descending walk finds its page
 * among the mapped applications' environments, which it reads first. `walkLimit`: a first call sized otherwise
 * (scopeSizedLimit).
 */
function firstWalkCall(
  orgId: string,
  q: EnvListQuery,
  plan: Extract<EnvironmentListPlan, { kind: 'index' }>,
  request: PageRequest,
  walkLimit = walkAhead(request),
): PartitionQuery {
  const forward = q.sortDir !== 'DESC';
  if (plan.order === 'applicationValue') return environmentEntriesQuery(orgId, 'id', forward, walkLimit);
  return plan.wholeItems && (plan.order === 'name' || plan.order === 'scanDate')
    ? environmentsOfOrgQuery(orgId, plan.order, forward, walkLimit, true)
    : environmentEntriesQuery(orgId, plan.order, forward, walkLimit);
}

/**
 * `query`'s application and environment names from the trigram index (namesContaining), read no further than
 * nameReadLimits of the caller's counters: started as soon as listScope has read them (onBuckets), so that the rest
 * of a trigram's partition goes beside the hidden applications' ids. The names are known by their application's id
 * alone: the plans on them (the matches' count, the set of the names) tell the caller's applications by
 * applicationKeep, whose ids are read as soon as the samples tell that both kinds will be given, beside the rest of
 * the names and the hidden applications' ids (else the compact entries, which carry the types, are read instead);
 * `onEstimated` is then told about how many names there are (queryWalkCall).
 */
function queryNames(orgId: string, text: string, onEstimated?: OnNamesEstimated) {
  let names: Promise<[NameMatch[] | undefined, NameMatch[] | undefined]> | undefined;
  let counted: CountedScope | undefined;
  let toServe = 2;
  const estimates = { applications: 0, environments: 0 };
  const served = (kind: keyof typeof estimates) => (estimate: number) => {
    estimates[kind] = estimate;
    if (--toServe > 0) return;
    // The scope's check of the named applications, beside the rest of the names (applicationKeep takes it).
    counted!.startApplicationKeep();
    onEstimated?.(counted!, estimates);
  };
  return {
    onBuckets: (listed: CountedScope) => {
      counted = listed;
      const limits = nameReadLimits(listed.counts);
      names = Promise.all([
        namesContaining(orgId, 'APP', text, limits.applications, { onServed: served('applications') }),
        namesContaining(orgId, 'ENV', text, limits.environments, { onServed: served('environments') }),
      ]);
      names.catch(() => undefined); // awaited by read, unless the scope fails first
    },
    // listScope calls onBuckets before it resolves: the names are started by then.
    read: () => names ?? Promise.reject(new Error('queryNames: read before the scope was counted')),
  };
}

/** Called once the name samples tell that both kinds of names will be given, with about how many (queryNames). */
type OnNamesEstimated = (counted: CountedScope, estimates: NameMatchCounts) => void;

/** The first call of `query`'s `index` walk made when the name samples were read (queryWalkCall). */
interface SpeculatedWalk {
  walk?: {
    order: Extract<EnvironmentListPlan, { kind: 'index' }>['order'];
    limit: number;
    /** A deep page's walk on its order's fences, started whole (startQueryFencedWalk). */
    fenced?: StartedFencedWalk;
  };
}

/**
 * `query`'s walk planned on what the name samples tell (about how many names there are), its first call made then:
 * beside the rest of the smallest trigram partition and the hidden applications' ids, rather than after them (a
 * round trip less). An `index` walk's first call is sized by the matches' share the estimates give (list-plan.ts
 * queryWalkShare; the walk, planned on the names read, takes it when it walks the same order); a `byApplication`
 * walk's first calls are its buckets' first (readAhead applications each). Read for nothing when the names read plan
 * otherwise (the estimates err by about a seventh): a page's worth of entries, sized on a share.
 */
function queryWalkCall(orgId: string, q: EnvListQuery, request: PageRequest, speculated: SpeculatedWalk) {
  return (counted: CountedScope, nameMatches: NameMatchCounts) => {
    const stats = { ...counted.counts, organization: counted.organization, nameMatches };
    const plan = planEnvironmentList(q, request, stats);
    const forward = q.sortDir !== 'DESC';
    if (plan.kind === 'byApplication' && plan.total === 'queryMatches')
      for (const bucket of counted.buckets)
        prefetchFirstCall(applicationEntriesQuery(orgId, bucket, 'name', forward, applicationWalkLimit(request)));
    if (plan.kind !== 'index' || plan.total !== 'queryMatches' || plan.order === 'applicationValue') return;
    const share = queryWalkShare(nameMatches, counted.counts, counted.organization);
    const limit = shareSizedLimit(walkAhead(request), share);
    const fenced = walkFencedList(plan, request, q);
    if (fenced && plan.order !== 'id') {
      const matches = share * counted.organization.environments;
      const { counts, organization } = counted;
      const walk = startQueryFencedWalk(orgId, fenced, plan.order, request, limit, counts, organization, matches, true);
      walk.catch(() => undefined); // awaited by the walk that takes it
      speculated.walk = { order: plan.order, limit, fenced: walk };
      return;
    }
    speculated.walk = { order: plan.order, limit };
    prefetchFirstCall(environmentEntriesQuery(orgId, plan.order, forward, limit));
  };
}

export async function listEnvironmentsV2(caller: Caller, orgId: string, q: EnvListQuery) {
  const membership = await caller.authorize(orgId);
  const sortField: EnvSortField = q.sortField ?? 'environmentName';
  const sortDir: SortDirection = q.sortDir === 'DESC' ? 'DESC' : 'ASC';
  const request = v2PageRequest(q.page, q.pageToken, q.pageSize);
  const now = Date.now();
  const text = q.query?.toLowerCase() ?? '';
  const early = text ? undefined : countersReads(orgId, q, request, now);
  // What the plan needs to know (list-plan.ts; docs/API.md, How a list is planned). `query` matches the
  // environment's or its application's name: the names containing it come from the trigram index (queryNames),
  // started beside the hidden applications' ids; beyond nameReadLimits, or under three characters (no trigram), the
  // applications' compact entries give theirs.
  const speculated: SpeculatedWalk = {};
  const names = text ? queryNames(orgId, text, queryWalkCall(orgId, q, request, speculated)) : undefined;
  const [scope, repos] = await Promise.all([
    listScope(orgId, membership, q.applicationTypes, q.teamIds, { onBuckets: early?.onBuckets ?? names?.onBuckets }),
    repositoriesByApplication(orgId),
  ]);
  const [appNames, envNames] = names ? await names.read() : [];
  const named = !text || appNames ? undefined : await applicationsNamedLike(orgId, scope, text);
  const appsMatchingQuery = !text
    ? undefined
    : appNames
      ? new Set(appNames.map((m) => m.applicationId))
      : new Set(named!.matching.map((app) => app.applicationId));
  // Every application of the caller's with environments matches (`query=pp` on `app-...`): the list is the
  // unfiltered one, served by the indexes of its orders.
  const everyMatch = !!named && named.everyMatch;
  const stats: EnvironmentListStats = {
    ...scope.counts,
    everyMatch,
    organization: scope.organization,
    nameMatches: appNames && envNames ? { applications: appNames.length, environments: envNames.length } : undefined,
  };
  const keep = entryKeep(scope, everyMatch ? { ...q, query: undefined } : q, appsMatchingQuery, now);
  const execute = (plan: EnvironmentListPlan) => {
    const applications = pageApplications(orgId, scope);
    const context = { orgId, q, request, sortField, sortDir, now, scope, repos, keep, appNames, envNames, speculated };
    const learners: ListContext['learners'] = [];
    const page = executePlan(plan, { ...context, appsMatchingQuery, applications, learners });
    return { applications, page, learners };
  };
  // includeAppHealthStats over the caller's buckets whole: from the health aggregates (health.ts), read beside the
  // plan's own reads; before an upgraded table's aggregates are complete, planned again to read every listed
  // environment (what the first plan read is then not used).
  const planned = planEnvironmentList(q, request, stats);
  const aggregates =
    planned.health === 'aggregates' ? (early?.aggregates ?? scopeHealthStats(orgId, scope.buckets, now)) : undefined;
  const first = execute(planned);
  first.page.catch(() => undefined); // a failure is seen below, unless the plan is replaced
  const aggregated = await aggregates;
  const plan =
    planned.health === 'aggregates' && !aggregated
      ? planEnvironmentList(q, request, { ...stats, healthAggregatesIncomplete: true })
      : planned;
  recordListPlan(plan);
  const { applications, page: read, learners } = plan === planned ? first : execute(plan);
  const page = await read;
  // The page's environments and applications, and the applications their repositories map, in one round trip: the
  // repositories are known by the entries' applications (a hidden entry's are read for nothing, never shown).
  const pageRepos = [...new Set(page.entries.map((e) => e.applicationId))].flatMap((appId) => repos.get(appId) ?? []);
  // What the walks learned (their fences) is written beside them.
  const [joined, mappedApps] = await Promise.all([
    pageItems(page.entries, orgId, membership, q, page.applications ?? applications.read(page.entries)),
    visibleApplications(
      orgId,
      membership,
      pageRepos.flatMap((repo) => repo.appIds),
    ),
    ...learners.map((learn) => learn()),
  ]);
  return {
    orgId,
    environments: joined.map((j) => toEnvironmentView(j, repos, mappedApps)),
    ...(q.includeAppHealthStats ? (aggregated ?? healthStats(page.all ?? [], now)) : {}),
    ...v2Envelope(
      {
        request,
        query: q.query ?? '',
        sortField,
        sortDir,
        filters: [
          { name: 'appIds', values: q.appIds },
          { name: 'envIds', values: q.envIds },
          { name: 'teamIds', values: q.teamIds },
          { name: 'envs', values: q.envs },
          { name: 'lastScanDate', values: q.lastScanDate ? [q.lastScanDate] : [] },
          { name: 'applicationTypes', values: q.applicationTypes },
          { name: 'lastScanStatus', values: q.lastScanStatus },
        ],
      },
      page.totalCount,
      page.hasNext,
    ),
  };
}

/**
 * Without `query`, the query string alone decides the plan (queryStringReads): what the plan reads from the scope's
 * counters alone starts as soon as they are read (listScope's onBuckets), beside the hidden applications' ids: the
 * health aggregates, and a walk's first call sized by the scope's share (walkSizedByScope).
 */
function countersReads(orgId: string, q: EnvListQuery, request: PageRequest, now: number) {
  const plan = planEnvironmentList(q, request, { applications: 0, environments: 0 });
  const reads: { aggregates?: Promise<HealthStats | undefined> } = {};
  const onBuckets = (counted: Pick<ListScope, 'buckets' | 'counts' | 'organization'>) => {
    if (plan.health === 'aggregates') {
      reads.aggregates = scopeHealthStats(orgId, counted.buckets, now);
      reads.aggregates.catch(() => undefined); // awaited by the list, unless it fails first
    }
    if (plan.kind === 'index' && walkSizedByScope(plan, request, q))
      prefetchFirstCall(firstWalkCall(orgId, q, plan, request, scopeSizedLimit(request, counted)));
  };
  return {
    onBuckets,
    get aggregates() {
      return reads.aggregates;
    },
  };
}

async function* filterStream<T>(items: AsyncIterable<T>, keep: (item: T) => boolean): AsyncGenerator<T> {
  for await (const item of items) if (keep(item)) yield item;
}

/**
 * Applications of the caller's buckets whose name contains `text` (lower-cased), from their compact entries; and
 * whether every one of them with environments does (then every environment of the caller's matches).
 */
async function applicationsNamedLike(
  orgId: string,
  scope: ListScope,
  text: string,
): Promise<{ matching: ListEntry[]; everyMatch: boolean }> {
  const attributes = ['applicationId', 'applicationType', 'name', 'environmentCount'];
  const lists = await Promise.all(scope.buckets.map((b) => bucketApplicationEntries(orgId, b, attributes)));
  const inScope = lists.flat().filter((app) => scope.keep(app));
  const matching = inScope.filter((app) => app.name.toLowerCase().includes(text));
  return {
    matching,
    everyMatch:
      matching.length > 0 &&
      inScope.every((app) => app.environmentCount === 0 || app.name.toLowerCase().includes(text)),
  };
}

/** The names of the entries' applications (sortField applicationName over a filtered set): one BatchGetItem. */
async function applicationNames(entries: Entry[]): Promise<Map<string, string>> {
  const apps = await getApplications([...new Set(entries.map((e) => e.applicationId))]);
  return new Map(apps.map((app) => [app.applicationId, app.name]));
}

/**
 * The page's applications (pageItems), read as soon as the list knows how: by key (a BatchGetItem, half a read unit
 * each) while they are few (pageApplicationsByKey), else from the compact entries of all of the caller's, which hold
 * what the view and the rules need but a cloud application's scan target: those few are read by key beside them
 * (the environments carry their application's type). An index walk shows it each entry of the page as it finds it
 * (onPageEntry): once the page has more applications than are read by key, the compact entries are read beside the
 * rest of the walk.
 */
function pageApplications(orgId: string, scope: ListScope) {
  let compact: Promise<ListEntry[]> | undefined;
  const readCompact = () => {
    if (!compact) {
      compact = Promise.all(scope.buckets.map((b) => bucketApplicationEntries(orgId, b))).then((lists) => lists.flat());
      compact.catch(() => undefined); // a failure is read's to see; one that nobody reads must not go unhandled
    }
    return compact;
  };
  const byKey = (count: number) => pageApplicationsByKey(count, scope.counts.applications);
  const seen = new Set<string>();
  return {
    onPageEntry: (entry: Entry) => {
      seen.add(entry.applicationId);
      if (!byKey(seen.size)) void readCompact();
    },
    /** The applications of these entries (environments, or the applications themselves). */
    read: async (entries: Pick<Entry, 'applicationId' | 'applicationType'>[]): Promise<PageApplication[]> => {
      const appIds = [...new Set(entries.map((e) => e.applicationId))];
      if (appIds.length === 0) return [];
      if (byKey(appIds.length)) return getApplications(appIds);
      const cloudOf = (list: typeof entries) =>
        getApplications(list.filter((e) => e.applicationType === 'CLOUD').map((e) => e.applicationId));
      // Entries without their type (query's names, sorted in memory: fromNames) leave it to the compact entries.
      const typed = entries.every((e) => e.applicationType !== undefined);
      const [all, cloud] = await Promise.all([readCompact(), typed ? cloudOf(entries) : undefined]);
      const wanted = new Set(appIds);
      const found = all.filter((app) => wanted.has(app.applicationId) && scope.keep(app));
      return fromCompactEntries(orgId, found, cloud ?? (await cloudOf(found)));
    },
  };
}
type PageApplications = ReturnType<typeof pageApplications>;

/** The page's applications from the scope's compact entries found for them, cloud ones as read whole. */
function fromCompactEntries(orgId: string, found: ListEntry[], cloudApps: ApplicationRecord[]): PageApplication[] {
  const cloud = new Map(cloudApps.map((app) => [app.applicationId, app]));
  return found.flatMap((entry): PageApplication[] => {
    if (entry.applicationType === 'CLOUD')
      return cloud.has(entry.applicationId) ? [cloud.get(entry.applicationId)!] : [];
    const { applicationId, name, applicationType, teamId } = entry;
    return [
      {
        applicationId,
        organizationId: orgId,
        name,
        applicationType,
        applicationStatus: entry.applicationStatus ?? 'ENV_INCOMPLETE',
        teamId,
      },
    ];
  });
}

/** What a page shows and checks of an application. */
type PageApplication = Pick<
  ApplicationRecord,
  'applicationId' | 'organizationId' | 'name' | 'applicationType' | 'applicationStatus' | 'teamId' | 'cloudScanTarget'
>;

interface Joined {
  env: EnvironmentRecord;
  app: PageApplication;
}

/**
 * The page's environments and applications, whole (the applications as pageApplications reads them). The team rules
 * and filters are checked again on them: an entry whose environment or application changed since the index was
 * read is left out rather than shown against the rules.
 */
async function pageItems(
  entries: Entry[],
  orgId: string,
  membership: Membership,
  q: EnvListQuery,
  applications: PageApplication[] | Promise<PageApplication[]>,
): Promise<Joined[]> {
  if (entries.length === 0) return [];
  // Entries read whole (the whole-item indexes, an application's partition) are not read again.
  const isWhole = (e: Entry): e is EnvironmentRecord => 'createdAt' in e;
  const [envs, apps] = await Promise.all([
    getEnvironmentsByKeys(
      entries
        .filter((e) => !isWhole(e))
        .map((e) => ({ applicationId: e.applicationId, environmentId: e.environmentId })),
    ),
    applications,
  ]);
  const envById = new Map([...entries.filter(isWhole), ...envs].map((env) => [env.environmentId, env]));
  const appById = new Map(apps.map((app) => [app.applicationId, app]));
  return entries.flatMap((entry) => {
    const env = envById.get(entry.environmentId);
    const app = appById.get(entry.applicationId);
    const shown =
      env &&
      app &&
      !env.deleting &&
      app.organizationId === orgId &&
      canSeeTeamResource(membership, app.teamId) &&
      q.applicationTypes.includes(app.applicationType) &&
      (q.teamIds.length === 0 || (!!app.teamId && q.teamIds.includes(app.teamId)));
    return shown ? [{ env, app }] : [];
  });
}

/** The environment view (application_view.EnvironmentView; docs/API.md, Environments): no last scan, empty fields. */
function toEnvironmentView({ env, app }: Joined, repos: RepositoriesByApp, mappedApps: Map<string, ApplicationRecord>) {
  const mapped = repos.get(env.applicationId) ?? [];
  return {
    environmentId: env.environmentId,
    environmentName: env.name,
    applicationId: env.applicationId,
    applicationName: app.name,
    applicationStatus: app.applicationStatus,
    applicationType: env.applicationType,
    cloudScanTarget: app.cloudScanTarget,
    lastScanId: env.lastScanId,
    lastScanStatus: env.lastScanStatus,
    lastScanTimestamp: env.lastScanTimestamp,
    lastScanCompletedTimestamp: env.lastScanCompletedTimestamp,
    lastScanDuration: env.lastScanDuration,
    lastScanTotalUntriaged: env.lastScanTotalUntriaged,
    lastScanHighUntriaged: env.lastScanHighUntriaged,
    lastScanMediumUntriaged: env.lastScanMediumUntriaged,
    lastScanLowUntriaged: env.lastScanLowUntriaged,
    latestScanConfigHash: env.latestScanConfigHash,
    lastScanHawkscanVersion: env.lastScanHawkscanVersion,
    repositoriesCount: mapped.length,
    thirtyDayCommitActivity: commitActivity(mapped),
    // Each repository with every application mapped to it that the caller may see, this one included.
    attackSurface: {
      applicationId: env.applicationId,
      repositories: mapped.map((repo) =>
        repositoryView(
          repo,
          repo.appIds.flatMap((id) => mappedApps.get(id) ?? []),
        ),
      ),
    },
    lastScanExternalAlertStats: [],
  };
}

/**
 * includeAppHealthStats over a filtered set (or before the aggregates are complete): findings of the listed
 * environments' last scans, and how recently their apps were scanned. The aggregates (health.ts) give the same
 * figures for whole buckets.
 */
function healthStats(all: Entry[], now: number): HealthStats {
  const findingsHealth = { high: 0, medium: 0, low: 0, total: 0 };
  const lastScanOfApp = new Map<string, number>();
  let failedScansCount = 0;
  for (const env of all) {
    findingsHealth.high += env.lastScanHighUntriaged ?? 0;
    findingsHealth.medium += env.lastScanMediumUntriaged ?? 0;
    findingsHealth.low += env.lastScanLowUntriaged ?? 0;
    findingsHealth.total += env.lastScanTotalUntriaged ?? 0;
    if (env.lastScanStatus === 'ERROR') failedScansCount++;
    lastScanOfApp.set(
      env.applicationId,
      Math.max(lastScanOfApp.get(env.applicationId) ?? 0, env.lastScanTimestamp ?? 0),
    );
  }
  const ages = [...lastScanOfApp.values()].map((t) => (t ? now - t : Infinity));
  return {
    findingsHealth,
    scanFrequencyHealth: {
      totalApps: ages.length,
      appsScannedWithinSevenDays: ages.filter((a) => a <= 7 * DAY).length,
      appsScannedWithinThirtyDays: ages.filter((a) => a <= 30 * DAY).length,
      appsScannedBeyondThirtyDays: ages.filter((a) => a > 30 * DAY && a !== Infinity).length,
      appsNeverScanned: ages.filter((a) => a === Infinity).length,
      failedScansCount,
    },
  };
}
