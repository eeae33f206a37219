import { applicationsOfOrgByName, getApplication, getApplications, organizationCounts, type ApplicationRecord } from './application-repository.ts';
import {
  NO_SCAN_STATUS,
  deleteEnvironmentData,
  environmentCreation,
  environmentDeletingMark,
  environmentRename,
  environmentsOfApp,
  environmentsOfOrg,
  environmentsOfOrgNamed,
  environmentsOfOrgWithStatus,
  getEnvironmentByName,
  type EnvironmentRecord,
  type LastScan,
  type LastScanStatus,
} from './environment-repository.ts';
import { accessibleApplication, accessibleEnvironment, canSeeTeamResource } from './access.ts';
import { repositoriesByApplication, type CodeRepositoryRecord } from '../code-repositories/store.ts';
import { repositoryView } from '../code-repositories/code-repositories.ts';
import { auditEntry, type TransactItem } from '../audit/entries.ts';
import { transactWriteRetryingConflicts } from '../db/query.ts';
import { cancellationReasons } from '../db/items.ts';
import { conflict, notFound } from '../errors.ts';
import { objectKeys } from '../storage/objects.ts';
import { deleteObjectsUnder } from '../storage/delete-prefix.ts';
import { newEnvironment, writeEnvironmentConfig } from './environment-creation.ts';
import { toApplication, visibleTeams } from './applications.ts';
import { ENV_SORT_FIELDS, LAST_SCAN_STATUSES, type ListEnvironmentsV1Query, type ListEnvironmentsV2Query } from './inputs.ts';
import {
  collect,
  compareBy,
  countRest,
  nameOrderKey,
  pageFromStream,
  pageOf,
  readAhead,
  v1NextPageToken,
  v2Envelope,
  v2PageRequest,
  type SortDirection,
} from '../lists.ts';
import { getScans } from '../scans/repository.ts';
import { currentStats, scanAlertStats } from '../scans/scans.ts';
import type { Caller } from '../http/caller.ts';
import type { Membership } from '../identity/membership-repository.ts';

// Environments (SPEC 2.2-2.4, 3, 4.2): create/update/delete, lookup by name for the scanner, and the two lists.

const MAX_ATTEMPTS = 8;
const RETRY_BUDGET_MS = 8_000;

/** The environment's create writes with its ENVIRONMENT_ADDED entry, for callers that commit them (scan results). */
export async function environmentCreationWrites(
  actor: { userId: string },
  app: ApplicationRecord,
  name: string,
  lastScan?: LastScan,
  env: EnvironmentRecord = { ...newEnvironment(app, name), ...lastScan },
) {
  const payload = { applicationId: app.applicationId, appName: app.name, envId: env.environmentId, envName: env.name };
  const items: TransactItem[] = [...environmentCreation(app, env), await auditEntry(actor, app.organizationId, 'ENVIRONMENT_ADDED', payload)];
  return { env, items };
}

/**
 * The live environment of this name in the application, or the writes that create it (scan-results issue:
 * commit `items` with the scan's own writes; `items` is empty when the environment exists). A created
 * environment starts with `lastScan` as its last scan.
 */
export async function findOrCreateEnvironmentByName(actor: { userId: string }, app: ApplicationRecord, name: string, lastScan?: LastScan) {
  const existing = await getEnvironmentByName(app.applicationId, name);
  if (existing) return { env: existing, created: false, items: [] as TransactItem[] };
  return { ...(await environmentCreationWrites(actor, app, name, lastScan)), created: true };
}

/**
 * Runs a write conditioned on the application's environment count, re-reading it when another write won. Gives
 * up (the cancellation answers 409: shared/http) after MAX_ATTEMPTS or RETRY_BUDGET_MS, well inside the timeout.
 */
async function withFreshApplication(appId: string, app: ApplicationRecord, write: (app: ApplicationRecord) => Promise<void>, countIndex: number) {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(app);
    } catch (error) {
      const exhausted = attempt >= MAX_ATTEMPTS || Date.now() - started > RETRY_BUDGET_MS;
      if (cancellationReasons(error)?.[countIndex] !== 'ConditionalCheckFailed' || exhausted) throw error;
      const fresh = await getApplication(appId);
      if (!fresh) throw notFound(`application ${appId} not found`);
      app = fresh;
    }
  }
}

export async function createEnvironment(caller: Caller, appId: string, body: { env: string }, host: string | undefined) {
  let { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  // The configuration object is written once; only the transaction is retried when concurrent creations win.
  const created = newEnvironment(app, body.env);
  try {
    // Items: environment, name claim, application count (index 2), counter, audit entry.
    await writeEnvironmentConfig(created, host, () =>
      withFreshApplication(appId, app, async (fresh) => {
        const { items } = await environmentCreationWrites(caller, fresh, body.env, undefined, created);
        await transactWriteRetryingConflicts(items);
        app = fresh;
      }, 2),
    );
  } catch (error) {
    if (cancellationReasons(error)?.[1] === 'ConditionalCheckFailed') throw conflict(`environment ${body.env} already exists in application ${appId}`);
    throw error;
  }
  return toApplication({ ...app, applicationStatus: 'ACTIVE', environmentCount: app.environmentCount + 1 }, created);
}

export async function updateEnvironment(caller: Caller, appId: string, envId: string, body: { name: string }) {
  const { app, env } = await accessibleEnvironment(caller, appId, envId, { teamRestricted: true });
  const payload = { applicationId: appId, appName: app.name, envId, envName: body.name, previousEnvName: env.name };
  try {
    await transactWriteRetryingConflicts([...environmentRename(env, body.name), await auditEntry(caller, app.organizationId, 'ENVIRONMENT_MODIFIED', payload)]);
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.[0] === 'ConditionalCheckFailed') throw notFound(`environment ${envId} not found in application ${appId}`);
    if (reasons?.[2] === 'ConditionalCheckFailed') throw conflict(`environment ${body.name} already exists in application ${appId}`);
    throw error;
  }
  return toApplication(app, { ...env, name: body.name });
}

/**
 * SPEC 3: deletes the environment and its scan results. Like an application delete: one transaction hides it
 * (with ENVIRONMENT_REMOVED), then its data goes; a retried DELETE of an interrupted delete resumes it.
 */
export async function deleteEnvironment(caller: Caller, appId: string, envId: string): Promise<void> {
  const { app, env } = await accessibleEnvironment(caller, appId, envId, { teamRestricted: true, includeDeleting: true });
  if (!env.deleting) {
    const payload = { applicationId: appId, appName: app.name, envId, envName: env.name };
    // Items: environment (index 0), name claim, application count (index 2), counter, audit entry.
    try {
      await withFreshApplication(appId, app, async (fresh) =>
        transactWriteRetryingConflicts([...environmentDeletingMark(fresh, env), await auditEntry(caller, app.organizationId, 'ENVIRONMENT_REMOVED', payload)]), 2);
    } catch (error) {
      if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') throw notFound(`environment ${envId} not found in application ${appId}`);
      throw error;
    }
  }
  await deleteObjectsUnder(objectKeys.environmentPrefix(appId, envId));
  await deleteEnvironmentData(appId, envId);
}

// ---- List Environments V2 (SPEC 4.2.1)

type EnvSortField = (typeof ENV_SORT_FIELDS)[number];
/** Filter values -> the stored status they select (UNSPECIFIED: never scanned; PENDING: no such stored state). */
const STORED_STATUS: Record<(typeof LAST_SCAN_STATUSES)[number], LastScanStatus | typeof NO_SCAN_STATUS | undefined> = {
  LAST_SCAN_STATUS_UNSPECIFIED: NO_SCAN_STATUS,
  LAST_SCAN_STATUS_SUCCESS: 'COMPLETED',
  LAST_SCAN_STATUS_ERRORED: 'ERROR',
  LAST_SCAN_STATUS_IN_PROGRESS: 'STARTED',
  LAST_SCAN_STATUS_PENDING: undefined,
};

const DAY = 24 * 60 * 60 * 1000;

type EnvListQuery = ListEnvironmentsV2Query;

interface Joined {
  env: EnvironmentRecord;
  app: ApplicationRecord | undefined;
}

/** Pairs environments with their applications, loading the applications a chunk at a time (BatchGetItem). */
async function* withApplications(envs: AsyncIterable<EnvironmentRecord>, chunkSize: number, cache = new Map<string, ApplicationRecord | undefined>()): AsyncGenerator<Joined> {
  let chunk: EnvironmentRecord[] = [];
  const flush = async function* () {
    const missing = [...new Set(chunk.map((e) => e.applicationId))].filter((id) => !cache.has(id));
    if (missing.length) {
      const apps = await getApplications(missing);
      for (const id of missing) cache.set(id, apps.find((a) => a.applicationId === id));
    }
    for (const env of chunk) yield { env, app: cache.get(env.applicationId) };
    chunk = [];
  };
  for await (const env of envs) {
    chunk.push(env);
    if (chunk.length >= chunkSize) yield* flush();
  }
  yield* flush();
}

/**
 * Every live application of the organization by id, for joins over a whole-organization walk: one index walk
 * (A items) instead of a BatchGetItem per chunk of environments, which at 50,000 environments was 500 round trips.
 */
async function applicationsById(orgId: string): Promise<Map<string, ApplicationRecord | undefined>> {
  const byId = new Map<string, ApplicationRecord | undefined>();
  for await (const app of applicationsOfOrgByName(orgId, true)) byId.set(app.applicationId, app);
  return byId;
}

async function* fromArrays<T>(lists: Promise<T[]>[]): AsyncGenerator<T> {
  for (const list of lists) yield* await list;
}

function lastScanDateMatches(filter: EnvListQuery['lastScanDate'], timestamp: number | undefined, now: number): boolean {
  if (!filter || filter === 'LAST_SCAN_DATE_UNSPECIFIED') return true;
  if (!timestamp) return false;
  const age = now - timestamp;
  const days = { LAST_24_HOURS: 1, LAST_7_DAYS: 7, LAST_14_DAYS: 14, LAST_30_DAYS: 30 } as const;
  return filter === 'OVER_30_DAYS' ? age > 30 * DAY : age <= days[filter] * DAY;
}

function environmentKeep(orgId: string, membership: Membership, q: EnvListQuery, now = Date.now()) {
  const text = q.query?.toLowerCase() ?? '';
  const names = q.envs.map((n) => n.toLowerCase());
  const statuses = q.lastScanStatus.map((s) => STORED_STATUS[s]);
  return ({ env, app }: Joined): boolean =>
    !!app &&
    app.organizationId === orgId &&
    canSeeTeamResource(membership, app.teamId) &&
    q.applicationTypes.includes(env.applicationType) &&
    (q.teamIds.length === 0 || (!!app.teamId && q.teamIds.includes(app.teamId))) &&
    (q.appIds.length === 0 || q.appIds.includes(env.applicationId)) &&
    (q.envIds.length === 0 || q.envIds.includes(env.environmentId)) &&
    (names.length === 0 || names.includes(env.name.toLowerCase())) &&
    (statuses.length === 0 || statuses.includes(env.lastScanStatus ?? NO_SCAN_STATUS)) &&
    lastScanDateMatches(q.lastScanDate, env.lastScanTimestamp, now) &&
    q.hasFlightpathSession !== true && // no flight-path sessions are recorded
    (!text || env.name.toLowerCase().includes(text) || app.name.toLowerCase().includes(text));
}

const padded = (n: number | undefined) => String(n ?? 0).padStart(15, '0');

/** Mapped repositories of each application (code-repositories/store.ts), for the repository fields and sorts. */
type RepositoriesByApp = Map<string, CodeRepositoryRecord[]>;
const commitActivity = (repos: CodeRepositoryRecord[] = []) => repos.reduce((sum, repo) => sum + repo.commitCount, 0);

function environmentSortValue(field: EnvSortField, repos: RepositoriesByApp): (j: Joined) => string | number {
  switch (field) {
    case 'environmentName':
      return (j) => nameOrderKey(j.env.name, j.env.environmentId);
    case 'scanDate':
      return (j) => `${padded(j.env.lastScanTimestamp)}#${j.env.environmentId}`; // the gsi3 order
    case 'applicationName':
      return (j) => nameOrderKey(j.app?.name ?? '', j.env.applicationId);
    case 'scanDuration':
      return (j) => j.env.lastScanDuration ?? 0;
    case 'scanFindingsCounts':
      return (j) => j.env.lastScanTotalUntriaged ?? 0;
    case 'environmentId':
      return (j) => j.env.environmentId;
    case 'mappedRepositoryCount':
      return (j) => repos.get(j.env.applicationId)?.length ?? 0;
    case 'thirtyDayCommitActivity':
      return (j) => commitActivity(repos.get(j.env.applicationId));
    default:
      return () => 0; // flight-path sessions are not recorded: the id decides
  }
}

/** The environment view (application_view.EnvironmentView, SPEC 2.2); last-scan fields stay empty until a scan. */
function toEnvironmentView({ env, app }: Joined, repos: RepositoriesByApp) {
  const mapped = repos.get(env.applicationId) ?? [];
  return {
    environmentId: env.environmentId,
    environmentName: env.name,
    applicationId: env.applicationId,
    applicationName: app?.name,
    applicationStatus: app?.applicationStatus,
    applicationType: env.applicationType,
    cloudScanTarget: app?.cloudScanTarget,
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
    attackSurface: { applicationId: env.applicationId, repositories: mapped.map((repo) => repositoryView(repo, app ? [app] : [])) },
    lastScanExternalAlertStats: [],
  };
}

/** includeAppHealthStats: findings of the listed environments' last scans, and how recently their apps were scanned. */
function healthStats(all: Joined[], now = Date.now()) {
  const findingsHealth = { high: 0, medium: 0, low: 0, total: 0 };
  const lastScanOfApp = new Map<string, number>();
  let failedScansCount = 0;
  for (const { env } of all) {
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

/**
 * Reads as little as the filters allow: an appIds/envs/lastScanStatus filter reads only the matching
 * environments (the applications' partitions, the name index, the status index); otherwise the organization's
 * name or scan-date index is walked, only as far as the page when that index gives the requested order.
 */
export async function listEnvironmentsV2(caller: Caller, orgId: string, q: EnvListQuery) {
  const membership = await caller.authorize(orgId);
  const sortField: EnvSortField = q.sortField ?? 'environmentName';
  const sortDir: SortDirection = q.sortDir === 'DESC' ? 'DESC' : 'ASC';
  const request = v2PageRequest(q.page, q.pageToken, q.pageSize);
  const keep = environmentKeep(orgId, membership, q);
  const chunk = Math.min(100, readAhead(request));
  const repos = repositoriesByApplication(orgId); // read alongside the environments

  let bounded: AsyncIterable<EnvironmentRecord> | undefined;
  if (q.appIds.length) bounded = fromArrays(q.appIds.map((id) => environmentsOfApp(id)));
  else if (q.envs.length) bounded = fromArrays([...new Set(q.envs.map((n) => n.toLowerCase()))].map((n) => environmentsOfOrgNamed(orgId, n)));
  else if (q.lastScanStatus.length) {
    const statuses = [...new Set(q.lastScanStatus.map((s) => STORED_STATUS[s]))].filter((s) => s !== undefined);
    bounded = fromArrays(statuses.map((s) => environmentsOfOrgWithStatus(orgId, s)));
  }
  const indexOrder = sortField === 'scanDate' ? 'scanDate' : sortField === 'environmentName' ? 'name' : undefined;

  let page: { items: Joined[]; totalCount: number; hasNext: boolean };
  let health: ReturnType<typeof healthStats> | undefined;
  if (!bounded && indexOrder && !q.includeAppHealthStats) {
    const stream = () => withApplications(environmentsOfOrg(orgId, indexOrder, sortDir === 'ASC', readAhead(request)), chunk);
    const streamed = await pageFromStream(stream(), keep, request);
    const countable = !q.query && q.envIds.length === 0 && !q.lastScanDate && q.hasFlightpathSession !== true;
    const totalCount = streamed.exhausted
      ? streamed.seen
      : countable
        ? (await organizationCounts(orgId, q.applicationTypes, visibleTeams(membership, q.teamIds))).environments
        : await countRest(withApplications(environmentsOfOrg(orgId, 'name', true), 100, await applicationsById(orgId)), keep);
    page = { items: streamed.items, totalCount, hasNext: streamed.hasNext };
  } else {
    const all = (
      await collect(bounded ? withApplications(bounded, 100) : withApplications(environmentsOfOrg(orgId, 'name', true), 100, await applicationsById(orgId)))
    ).filter(keep);
    all.sort(compareBy(environmentSortValue(sortField, await repos), (j) => j.env.environmentId, sortDir));
    page = pageOf(all, request);
    if (q.includeAppHealthStats) health = healthStats(all);
  }
  const repoMap = await repos;
  return {
    orgId,
    environments: page.items.map((j) => toEnvironmentView(j, repoMap)),
    ...health,
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

// ---- Deprecated List Environments (SPEC 4.2.4)

/** The application's environments (application.Environment, SPEC 2.3); filtered to nothing for non-team members. */
export async function listEnvironmentsV1(caller: Caller, appId: string, q: ListEnvironmentsV1Query) {
  const { app, membership } = await accessibleApplication(caller, appId, { teamRestricted: false });
  const names = q.envs.map((n) => n.toLowerCase());
  const envs = canSeeTeamResource(membership, app.teamId)
    ? (await environmentsOfApp(appId)).filter((env) => names.length === 0 || names.includes(env.name.toLowerCase()))
    : [];
  const value = q.sortField === 'id' ? (e: EnvironmentRecord) => e.environmentId : (e: EnvironmentRecord) => nameOrderKey(e.name, e.environmentId);
  envs.sort(compareBy(value, (e) => e.environmentId, q.sortDir === 'desc' ? 'DESC' : 'ASC'));
  const request = { page: q.pageToken, size: q.pageSize };
  const page = pageOf(envs, request);
  // The page's last scans, for their alert statistics (one BatchGetItem; a running one's from its alerts).
  const scans = new Map((await getScans(page.items.flatMap((env) => (env.lastScanId ? [{ ...env, scanId: env.lastScanId }] : [])))).map((s) => [s.scanId, s]));
  const alertStats = new Map(await Promise.all([...scans.values()].map(async (scan) => [scan.scanId, scanAlertStats(await currentStats(scan))] as const)));
  return {
    environments: page.items.map((env) => ({
      environmentId: env.environmentId,
      environmentName: env.name,
      latestScanType: env.latestScanType ?? 'DEFAULT',
      currentScanSummary: env.lastScanId
        ? {
            scanId: env.lastScanId,
            applicationId: env.applicationId,
            configHash: env.latestScanConfigHash,
            version: env.lastScanHawkscanVersion,
            timestamp: Math.floor((env.lastScanTimestamp ?? 0) / 1000), // SPEC 2.4: seconds
            alertStats: alertStats.get(env.lastScanId),
          }
        : undefined,
    })),
    nextPageToken: v1NextPageToken(request, page.hasNext),
    totalCount: page.totalCount,
  };
}
