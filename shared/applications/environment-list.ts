import { getApplications, type ApplicationRecord } from './application-repository.ts';
import { NO_SCAN_STATUS, environmentsOfApp, environmentsOfOrg, getEnvironmentsByKeys, type EnvironmentRecord, type LastScanStatus } from './environment-repository.ts';
import {
  allEnvironmentEntries,
  applicationEntries,
  applicationsCovering,
  environmentEntries,
  environmentEntriesByIds,
  environmentEntriesNamed,
  environmentEntriesScannedBetween,
  environmentEntriesWithStatus,
  listScope,
  mergeOrdered,
  namesContaining,
  wholeApplicationsOfBucket,
  type EnvironmentListOrder,
  type ListEntry,
  type ListScope,
} from './list-entries.ts';
import { canSeeTeamResource } from './access.ts';
import { DAY, scopeHealthStats, type HealthStats } from './health.ts';
import { repositoriesByApplication, type CodeRepositoryRecord } from '../code-repositories/store.ts';
import { repositoryView, visibleApplications } from '../code-repositories/code-repositories.ts';
import { ENV_SORT_FIELDS, LAST_SCAN_STATUSES, type ListEnvironmentsV2Query } from './inputs.ts';
import { compareBy, nameOrderKey, pageFromStream, pageOf, readAhead, v2Envelope, v2PageRequest, type PageRequest, type SortDirection } from '../lists.ts';
import type { Caller } from '../http/caller.ts';
import type { Membership } from '../identity/membership-repository.ts';

// List Environments V2 (SPEC 4.2.1). Every order and filter is served from the compact list indexes
// (list-entries.ts, docs/DATA-MODEL.md Reads): an order an index keeps is walked only as far as the page; a filter
// with an index reads only what matches; whole items are read for the returned page alone.

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

/** Pages 0 to this of the name and scan-date orders are walked on whole items (listEnvironmentsV2). */
const WHOLE_ITEM_PAGES = 3;
const LAST_SCAN_DAYS = { LAST_24_HOURS: 1, LAST_7_DAYS: 7, LAST_14_DAYS: 14, LAST_30_DAYS: 30 } as const;

/** The index each sort field's order is (sort value, then id): the walk needs nothing else. */
const INDEXED_ORDER: Partial<Record<EnvSortField, EnvironmentListOrder>> = {
  environmentName: 'name',
  scanDate: 'scanDate',
  environmentId: 'id',
  flightpathLastUpdated: 'id', // flight-path sessions are not recorded: every value is equal, the id decides
  scanDuration: 'duration',
  scanFindingsCounts: 'findings',
};

function lastScanDateMatches(filter: EnvListQuery['lastScanDate'], timestamp: number | undefined, now: number): boolean {
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

/** `fn` over `items`, at most `width` at a time (one Query per item: not thousands in flight). */
async function mapBounded<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(fn))));
  return out;
}

/** The environments `query` selects, whole: those named like it and those of the applications named like it. */
async function environmentsMatching(orgId: string, matches: QueryMatches): Promise<EnvironmentRecord[]> {
  const [named, ofApps] = await Promise.all([getEnvironmentsByKeys(matches.environments), mapBounded([...matches.applications], 32, (id) => environmentsOfApp(id))]);
  const byId = new Map([...named, ...ofApps.flat()].filter((env) => !env.deleting && env.organizationId === orgId).map((env) => [env.environmentId, env]));
  return [...byId.values()];
}

/**
 * The entries a filter with an index selects (reading only those), or undefined when no such filter is given.
 * Most selective first: the applications' own partitions, the id index, the name index, the name trigram index
 * (`query`), the status index, the scan-date index.
 */
function filteredEntries(orgId: string, q: EnvListQuery, now: number, queryMatches: QueryMatches | undefined): Promise<Omit<ListEntry, 'sortKey'>[]> | undefined {
  // Another organization's application ids select nothing (its partitions are not this organization's indexes).
  if (q.appIds.length) return Promise.all(q.appIds.map((id) => environmentsOfApp(id))).then((lists) => lists.flat().filter((env) => env.organizationId === orgId));
  if (q.envIds.length) return environmentEntriesByIds(orgId, q.envIds);
  if (q.envs.length) return Promise.all([...new Set(q.envs.map((n) => n.toLowerCase()))].map((n) => environmentEntriesNamed(orgId, n))).then((l) => l.flat());
  if (queryMatches) return environmentsMatching(orgId, queryMatches);
  if (q.lastScanStatus.length) {
    const statuses = [...new Set(q.lastScanStatus.map((s) => STORED_STATUS[s]))].filter((s) => s !== undefined);
    return Promise.all(statuses.map((s) => environmentEntriesWithStatus(orgId, s))).then((l) => l.flat());
  }
  if (q.lastScanDate && q.lastScanDate !== 'LAST_SCAN_DATE_UNSPECIFIED') {
    const [from, to] = q.lastScanDate === 'OVER_30_DAYS' ? [1, now - 30 * DAY] : [now - LAST_SCAN_DAYS[q.lastScanDate] * DAY, now + 365 * DAY * 100];
    return environmentEntriesScannedBetween(orgId, from, to);
  }
  return undefined;
}

const padded = (n: number | undefined) => String(n ?? 0).padStart(15, '0');

/** Mapped repositories of each application (code-repositories/store.ts), for the repository fields and sorts. */
type RepositoriesByApp = Map<string, CodeRepositoryRecord[]>;
const commitActivity = (repos: CodeRepositoryRecord[] = []) => repos.reduce((sum, repo) => sum + repo.commitCount, 0);

/** Per-application sort values (repository sorts): 0 for applications without mapped repositories. */
function applicationValue(field: EnvSortField, repos: RepositoriesByApp): ((appId: string) => number) | undefined {
  if (field === 'mappedRepositoryCount') return (appId) => repos.get(appId)?.length ?? 0;
  if (field === 'thirtyDayCommitActivity') return (appId) => commitActivity(repos.get(appId));
  return undefined;
}

/** The in-memory form of every order (the same values the indexes hold), for filtered sets. */
function entrySortValue(field: EnvSortField, repos: RepositoriesByApp, appNames: Map<string, string>): (e: Omit<ListEntry, 'sortKey'>) => string | number {
  const perApp = applicationValue(field, repos);
  if (perApp) return (e) => perApp(e.applicationId);
  switch (field) {
    case 'environmentName':
      return (e) => nameOrderKey(e.name, e.environmentId);
    case 'scanDate':
      return (e) => `${padded(e.lastScanTimestamp)}#${e.environmentId}`;
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
): Promise<AsyncIterable<Entry>> {
  const mapped = [...repos.keys()].filter((appId) => value(appId) !== 0);
  const valued: Entry[] = (await Promise.all(mapped.map((appId) => environmentsOfApp(appId)))).flat().filter(keep);
  valued.sort(compareBy((e) => value(e.applicationId), (e) => e.environmentId, sortDir));
  const mappedIds = new Set(mapped);
  const zeros = filterStream(environmentEntries(orgId, 'id', sortDir === 'ASC', walkLimit), (e) => !mappedIds.has(e.applicationId));
  return sortDir === 'ASC' ? concat(zeros, valued) : concat(valued, zeros);
}

async function* concat<T>(...parts: (AsyncIterable<T> | T[])[]): AsyncGenerator<T> {
  for (const part of parts) yield* part;
}

/**
 * sortField applicationName, filtered by type and team only: the order is (application name, application id,
 * environment id), so the applications are walked by name (compact, the caller's buckets merged) and skipped whole
 * by their environment counts; only the applications on the page have their environments read.
 */
async function byApplicationName(orgId: string, scope: ListScope, forward: boolean, request: PageRequest): Promise<EntryPage> {
  const total = scope.counts.environments;
  const start = request.page * request.size;
  const apps = mergeOrdered(scope.buckets.map((b) => applicationEntries(orgId, b, 'name', forward, Math.min(1000, readAhead(request)))), forward);
  const onPage = await applicationsCovering(apps, (app) => (scope.keep(app) ? (app.environmentCount ?? 0) : 0), start, request.size);
  const envs = await Promise.all(onPage.map(({ entry }) => environmentsOfApp(entry.applicationId))); // in id order (ENV#<id>)
  const entries = onPage.flatMap(({ skip, take }, i) => (forward ? envs[i] : envs[i].reverse()).slice(skip, skip + take));
  return { entries, totalCount: total, hasNext: start + request.size < total };
}

export async function listEnvironmentsV2(caller: Caller, orgId: string, q: EnvListQuery) {
  const membership = await caller.authorize(orgId);
  const sortField: EnvSortField = q.sortField ?? 'environmentName';
  const sortDir: SortDirection = q.sortDir === 'DESC' ? 'DESC' : 'ASC';
  const forward = sortDir === 'ASC';
  const request = v2PageRequest(q.page, q.pageToken, q.pageSize);
  const now = Date.now();
  const text = q.query?.toLowerCase() ?? '';
  const [scope, repos] = await Promise.all([listScope(orgId, membership, q.applicationTypes, q.teamIds), repositoriesByApplication(orgId)]);
  // `query` matches the environment's or its application's name. The matches are read whole (about half a read unit
  // each: a BatchGetItem, or an application's partition) while they are at most a tenth of the caller's environments
  // (applications counted by their average environment count); beyond that (or under three characters: no
  // trigram), the compact entries of all cost less (about a twentieth of a unit each), and at most ten times the
  // matches. The names come from the trigram index, whose entries cost a little less than compact ones: each trigram
  // partition is read no further than a quarter of the caller's environments (a partition holds candidates, not
  // matches: `app-00001` has 1,100 candidates for 10 applications in the bench's organization of 10,000 environments).
  const perApp = scope.counts.applications ? scope.counts.environments / scope.counts.applications : 1;
  const limit = Math.max(100, scope.counts.environments / 10);
  const candidates = Math.max(100, scope.counts.environments / 4);
  const [appNames, envNames] = text ? await Promise.all([namesContaining(orgId, 'APP', text, candidates), namesContaining(orgId, 'ENV', text, candidates)]) : [];
  // The applications that match: from the trigram index, else from the per-bucket name index (compact).
  const appsMatchingQuery = !text ? undefined : appNames ? new Set(appNames.map((m) => m.applicationId)) : await applicationsNamedLike(orgId, scope, text);
  const keep = entryKeep(scope, q, appsMatchingQuery, now);
  const queryMatches: QueryMatches | undefined =
    appNames && envNames && envNames.length + appNames.length * perApp <= limit
      ? { environments: envNames.map((m) => ({ applicationId: m.applicationId, environmentId: m.environmentId! })), applications: appsMatchingQuery! }
      : undefined;
  const filtered = q.hasFlightpathSession === true ? undefined : filteredEntries(orgId, q, now, queryMatches);
  const order = INDEXED_ORDER[sortField];
  const byAppValue = applicationValue(sortField, repos);
  // includeAppHealthStats over the caller's buckets whole (no filter on environments): from the health aggregates
  // (health.ts); otherwise, or before an upgraded table's aggregates are complete, from every listed environment.
  const aggregated = q.includeAppHealthStats && !filtered && !text && q.hasFlightpathSession !== true ? await scopeHealthStats(orgId, scope.buckets, now) : undefined;
  const readsAll = q.includeAppHealthStats && !aggregated;

  let page: EntryPage;
  if (q.hasFlightpathSession === true) page = { entries: [], totalCount: 0, hasNext: false };
  else if (!filtered && !readsAll && sortField === 'applicationName' && !text) page = await byApplicationName(orgId, scope, forward, request);
  else if (!filtered && !readsAll && !text && (order || byAppValue)) {
    const walkLimit = readAhead(request); // grows per call (list-entries.ts)
    // The first pages of the name and scan-date orders walk the indexes copying whole items (gsi2, gsi3): a Query
    // is charged by the kilobytes it reads, a BatchGetItem by the item, so up to about 5 pages of entries cost less
    // read whole than read compact and then fetched (pageSize 1000: 1,000 items in one Query instead of 1,000 gets).
    const whole = request.page <= WHOLE_ITEM_PAGES && (order === 'name' || order === 'scanDate');
    const stream = whole
      ? environmentsOfOrg(orgId, order, forward, walkLimit, true)
      : order
        ? environmentEntries(orgId, order, forward, walkLimit)
        : await byApplicationValue(orgId, byAppValue!, repos, keep, sortDir, walkLimit);
    const streamed = await pageFromStream<Entry>(stream, keep, request);
    // Only the type and team filters: the counters of the caller's buckets give the total.
    const totalCount = streamed.exhausted ? streamed.seen : scope.counts.environments;
    page = { entries: streamed.items, totalCount, hasNext: streamed.hasNext };
  } else {
    // A filtered set (read from its index) or the whole organization (compact), sorted in memory. A `query` with
    // many matches lands here rather than walking an order: its matches may all sit at the far end of any order.
    const all = (filtered ? await filtered : await allEnvironmentEntries(orgId)).filter(keep);
    const appNames = sortField === 'applicationName' ? await applicationNames(all) : new Map<string, string>();
    all.sort(compareBy(entrySortValue(sortField, repos, appNames), (e) => e.environmentId, sortDir));
    const { items, totalCount, hasNext } = pageOf(all, request);
    page = { entries: items, totalCount, hasNext, all };
  }
  const joined = await pageItems(page.entries, orgId, membership, q, scope);
  const pageRepos = joined.flatMap((j) => repos.get(j.env.applicationId) ?? []);
  const mappedApps = await visibleApplications(orgId, membership, pageRepos.flatMap((repo) => repo.appIds));
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

async function* filterStream<T>(items: AsyncIterable<T>, keep: (item: T) => boolean): AsyncGenerator<T> {
  for await (const item of items) if (keep(item)) yield item;
}

async function collectStream<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** Applications of the caller's buckets whose name contains `text` (lower-cased). */
async function applicationsNamedLike(orgId: string, scope: ListScope, text: string): Promise<Set<string>> {
  const lists = await Promise.all(scope.buckets.map((b) => collectStream(applicationEntries(orgId, b, 'name', true, 1000, ['applicationId', 'name']))));
  return new Set(lists.flat().filter((app) => app.name.toLowerCase().includes(text)).map((app) => app.applicationId));
}

/** The names of the entries' applications (sortField applicationName over a filtered set): one BatchGetItem. */
async function applicationNames(entries: Entry[]): Promise<Map<string, string>> {
  const apps = await getApplications([...new Set(entries.map((e) => e.applicationId))]);
  return new Map(apps.map((app) => [app.applicationId, app.name]));
}

interface Joined {
  env: EnvironmentRecord;
  app: ApplicationRecord;
}

/**
 * The page's environments and applications, whole (two BatchGetItem calls). The team rules and filters are checked
 * again on them: an entry whose environment or application changed since the index was read is left out rather
 * than shown against the rules.
 */
async function pageItems(entries: Entry[], orgId: string, membership: Membership, q: EnvListQuery, scope: ListScope): Promise<Joined[]> {
  if (entries.length === 0) return [];
  // Entries read whole (the whole-item indexes, an application's partition) are not read again.
  const isWhole = (e: Entry): e is EnvironmentRecord => 'createdAt' in e;
  // The page's applications: a BatchGetItem (half a read unit each), or, when they are more than an eighth of the
  // caller's (a page of 1,000 by environment name has as many applications), all of those read whole by Query.
  const appIds = [...new Set(entries.map((e) => e.applicationId))];
  const readApps = () =>
    appIds.length > Math.max(100, scope.counts.applications / 8)
      ? Promise.all(scope.buckets.map((b) => wholeApplicationsOfBucket(orgId, b))).then((lists) => lists.flat().filter((app) => !app.deleting))
      : getApplications(appIds);
  const [envs, apps] = await Promise.all([
    getEnvironmentsByKeys(entries.filter((e) => !isWhole(e)).map((e) => ({ applicationId: e.applicationId, environmentId: e.environmentId }))),
    readApps(),
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

/** The environment view (application_view.EnvironmentView, SPEC 2.2); last-scan fields stay empty until a scan. */
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
    attackSurface: { applicationId: env.applicationId, repositories: mapped.map((repo) => repositoryView(repo, repo.appIds.flatMap((id) => mappedApps.get(id) ?? []))) },
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
    lastScanOfApp.set(env.applicationId, Math.max(lastScanOfApp.get(env.applicationId) ?? 0, env.lastScanTimestamp ?? 0));
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
