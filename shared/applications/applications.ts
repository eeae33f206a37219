import { isAllowlisted } from './scan-domains.ts';
import { randomUUID } from 'node:crypto';
import { applicationsCreation, applicationRename, getApplication, getApplications } from './application-repository.ts';
import {
  type ApplicationRecord,
  type ApplicationType,
  type EnvironmentRecord,
  type ApplicationListOrder,
  type ListEntry,
  type ListScope,
  type NameMatch,
  canSeeTeamResource,
  newEnvironment,
  APPLICATION_TYPES,
  type CodeRepositoryRecord,
} from './model.ts';
import { environmentPuts, environmentsOfApp } from './environment-repository.ts';
import {
  applicationEntries,
  applicationEntriesQuery,
  bucketApplicationEntries,
  applicationsCovering,
  applicationIdsWithStatus,
  environmentEntriesNamed,
  environmentEntriesNamedQuery,
  listScope,
  listScopeReads,
  mergeOrdered,
  namesContaining,
  nameSampleReads,
  wholeApplicationsOfBucket,
} from './list-entries.ts';
import { accessibleApplication } from './access.ts';
import {
  applicationNameReadLimit,
  isFew,
  planApplicationList,
  planDeprecatedApplicationList,
  type ApplicationListPlan,
} from './list-plan.ts';
import { recordListPlan } from '../context/request-scope.ts';
import { auditEntry } from '../audit/entries.ts';
import { prefetchFirstCall, type OperationReads, type ReadOptions } from '../db/query.ts';
import { transactWrite } from '../db/transactions.ts';
import { conditionFailed } from '../db/items.ts';
import { derivedWrites } from '../db/entity-write.ts';
import { CONFLICT_ATTEMPTS, failedCondition, retryOnConflict } from '../db/retry.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { applicationOwners } from './entities.ts';
import { writeEnvironmentConfig } from './environment-creation.ts';
import {
  APP_SORT_FIELDS,
  type CreateApplicationBody,
  type ListApplicationsV1Query,
  type ListApplicationsV2Query,
  listApplicationsV1Query,
  listApplicationsV2Query,
} from './inputs.ts';
import {
  compareBy,
  concat,
  nameOrderKey,
  pageFromStream,
  pageOf,
  readAhead,
  type PageOf,
  type PageRequest,
  v1NextPageToken,
  v2Envelope,
  v2PageRequest,
  type SortDirection,
} from '../lists.ts';
import type { Caller, Membership } from '../context/caller.ts';
import { codeRepositoriesRead, repositoriesByApplication } from './code-repository-store.ts';

// Applications (docs/API.md, Applications; Deletes): create/get/update/delete, the application views and the
// application lists.

/** application.Application: `env` and `envId` only when the view is of one environment. */
export function toApplication(app: ApplicationRecord, env?: EnvironmentRecord) {
  return {
    applicationId: app.applicationId,
    name: app.name,
    env: env?.name,
    envId: env?.environmentId,
    applicationStatus: app.applicationStatus,
    organizationId: app.organizationId,
    applicationType: app.applicationType,
    cloudScanTarget: app.cloudScanTarget ?? {}, // an empty object by default, not absent (docs/API.md, Applications)
    dataType: app.dataType,
    riskLevel: app.riskLevel,
  };
}

/** What a caller creates belongs to its team (docs/API.md, Team rules); an explicit teamId must be one of them. */
function owningTeam(membership: Membership, requested: string | null | undefined): string | undefined {
  if (requested) {
    if (!membership.teamIds.includes(requested)) throw badRequest(`teamId: you are not a member of team ${requested}`);
    return requested;
  }
  // A member of several teams gets the first one it joined; it can name another with teamId.
  return membership.teamIds[0];
}

export async function createApplication(caller: Caller, orgId: string, body: CreateApplicationBody) {
  const membership = await caller.authorize(orgId);
  if (body.organizationId && body.organizationId.toLowerCase() !== orgId.toLowerCase()) {
    throw badRequest(`organizationId: ${body.organizationId} does not match the organization in the path (${orgId})`);
  }
  const applicationType: ApplicationType = body.applicationType ?? 'STANDARD';
  if (applicationType === 'CLOUD' && !body.cloudScanTargetURL)
    throw badRequest('cloudScanTargetURL: required when applicationType is CLOUD');
  const envName = body.env || undefined;
  const app: ApplicationRecord = {
    applicationId: randomUUID(),
    organizationId: orgId,
    name: body.name ?? '',
    applicationType,
    applicationStatus: envName ? 'ACTIVE' : 'ENV_INCOMPLETE',
    cloudScanTarget: body.cloudScanTargetURL
      ? {
          targetURL: body.cloudScanTargetURL,
          // An allowlisted host counts as verified from the start (docs/HOSTED-SCANS.md, Verification).
          isDomainVerified: await isAllowlisted(orgId, new URL(body.cloudScanTargetURL).hostname),
        }
      : undefined,
    dataType: body.dataType,
    riskLevel: body.riskLevel,
    teamId: owningTeam(membership, body.teamId),
    environmentCount: envName ? 1 : 0,
    createdAt: Date.now(),
  };
  const env = envName ? newEnvironment(app, envName) : undefined;
  const items = [
    auditEntry(caller, orgId, 'APPLICATION_ADDED', {
      applicationId: app.applicationId,
      appName: app.name,
      envName: env?.name,
    }),
    // With its environment counted (environmentCount), in its bucket's counter (its projections).
    ...applicationsCreation([app]),
  ];
  // The team lists its applications: it gains this one in the same transaction (and must still exist).
  items.push(
    ...derivedWrites(applicationOwners, new Map(), new Map([[app.applicationId, app.teamId]]), {
      organizationId: orgId,
    }),
  );
  if (env) {
    items.push(
      ...environmentPuts(env),
      auditEntry(caller, orgId, 'ENVIRONMENT_ADDED', {
        applicationId: app.applicationId,
        appName: app.name,
        envId: env.environmentId,
        envName: env.name,
      }),
    );
  }
  try {
    await writeEnvironmentConfig(env, body.host, () => transactWrite(items));
  } catch (error) {
    if (conditionFailed(error, 'teamGone')) throw conflict(`team ${app.teamId} was deleted meanwhile: try again`);
    throw error;
  }
  return toApplication(app);
}

export async function readApplication(caller: Caller, appId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  return toApplication(app);
}

export async function updateApplication(caller: Caller, appId: string, body: { name: string }) {
  let { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  const gone = () => notFound(`application ${appId} not found`);
  return retryOnConflict(
    { conflict: failedCondition(['applicationChanged']), exhausted: gone, attempts: CONFLICT_ATTEMPTS },
    async (attempt) => {
      if (attempt > 1) {
        // Gone, or renamed meanwhile (the write is conditioned on the name read): read it again.
        const fresh = await getApplication(appId);
        if (!fresh) throw gone();
        app = fresh;
      }
      const payload = { applicationId: appId, appName: body.name, previousAppName: app.name };
      await transactWrite([
        ...applicationRename(app, body.name),
        auditEntry(caller, app.organizationId, 'APPLICATION_MODIFIED', payload),
      ]);
      return toApplication({ ...app, name: body.name });
    },
  );
}

// ---- Lists (docs/DATA-MODEL.md, Reads): walked on the per-(type, team) compact application entries
// (list-entries.ts), whole applications read for the page only; the planner (list-plan.ts; docs/API.md, How a list
// is planned) chooses how.

type AppSortField = (typeof APP_SORT_FIELDS)[number];

const commitActivity = (repos: CodeRepositoryRecord[] = []) => repos.reduce((sum, repo) => sum + repo.commitCount, 0);

function applicationSortValue(
  field: AppSortField,
  repos: Map<string, CodeRepositoryRecord[]>,
): (app: Pick<ApplicationRecord, 'applicationId' | 'name' | 'applicationStatus'>) => string | number {
  switch (field) {
    case 'applicationName':
      return (app) => nameOrderKey(app.name, app.applicationId);
    case 'applicationStatus':
      return (app) => app.applicationStatus;
    case 'applicationId':
      return (app) => app.applicationId;
    case 'mappedRepositoryCount':
      return (app) => repos.get(app.applicationId)?.length ?? 0;
    case 'thirtyDayCommitActivity':
      return (app) => commitActivity(repos.get(app.applicationId));
  }
}

/** What the application lists filter on: a compact entry, or a whole application. */
type AppEntry = Pick<ListEntry, 'applicationId' | 'name' | 'applicationType' | 'applicationStatus'>;

/** The caller's buckets' applications merged in one order, read lazily. */
const applicationsInOrder = (
  orgId: string,
  scope: ListScope,
  order: ApplicationListOrder,
  forward: boolean,
  pageLimit?: number,
  options?: ReadOptions,
) =>
  mergeOrdered(
    scope.buckets.map((b) => applicationEntries(orgId, b, order, forward, pageLimit, undefined, options)),
    forward,
  );

async function* without<T extends { applicationId: string }>(
  items: AsyncIterable<T>,
  ids: Set<string>,
): AsyncGenerator<T> {
  for await (const item of items) if (!ids.has(item.applicationId)) yield item;
}

/** Whole applications for a page of entries, in the entries' order (one BatchGetItem), re-checked by `keep`. */
async function applicationsOf(
  entries: { applicationId: string }[],
  keep: (app: ApplicationRecord) => boolean,
): Promise<ApplicationRecord[]> {
  const byId = new Map(
    (await getApplications(entries.map((e) => e.applicationId))).map((app) => [app.applicationId, app]),
  );
  return entries.flatMap((e) => {
    const app = byId.get(e.applicationId);
    return app && keep(app) ? [app] : [];
  });
}

/**
 * Repository sorts: applications without mapped repositories (value 0) in id order from the index, the mapped ones
 * (read whole: as many as the repositories map) in (value, id) order after (ASC) or before them. The mapped ones are
 * known by id from the repositories: they are read beside the walk's first call.
 */
function applicationsByRepositoryValue(c: AppListContext, walkLimit: number): AsyncIterable<AppEntry> {
  const forward = c.sortDir === 'ASC';
  const value = applicationSortValue(c.sortField, c.repos);
  const mappedIds = [...c.repos.keys()].filter(
    (applicationId) => value({ applicationId, name: '', applicationStatus: 'ACTIVE' }) !== 0,
  );
  const valued = getApplications(mappedIds).then((apps) =>
    apps.filter(c.keep).sort(compareBy(value, (a) => a.applicationId, c.sortDir)),
  );
  const zeros = without(applicationsInOrder(c.orgId, c.scope!, 'id', forward, walkLimit), new Set(mappedIds));
  return forward ? concat<AppEntry>(zeros, awaited(valued)) : concat<AppEntry>(awaited(valued), zeros);
}

async function* awaited<T>(items: Promise<T[]>): AsyncGenerator<T> {
  yield* await items;
}

/** listApplicationsV2's answer: the page's applications in the V2 envelope, echoing the query and its filters. */
function applicationsV2Answer(
  orgId: string,
  q: ListApplicationsV2Query,
  request: PageRequest,
  sortField: AppSortField,
  sortDir: SortDirection,
  page: PageOf<ApplicationRecord>,
) {
  return {
    orgId,
    applications: page.items.map((app) => toApplication(app)),
    ...v2Envelope(
      {
        request,
        query: q.query ?? '',
        sortField,
        sortDir,
        filters: [
          { name: 'appIds', values: q.appIds },
          { name: 'teamIds', values: q.teamIds },
          { name: 'applicationStatus', values: q.applicationStatus },
          { name: 'applicationTypes', values: q.applicationTypes },
        ],
      },
      page.totalCount,
      page.hasNext,
    ),
  };
}

/** What the executors of a listApplicationsV2 plan read from: the request, the caller's scope and what the planning read. */
interface AppListContext {
  orgId: string;
  q: ListApplicationsV2Query;
  request: PageRequest;
  sortField: AppSortField;
  sortDir: SortDirection;
  /** The caller's buckets (none when appIds names the applications). */
  scope?: ListScope;
  repos: Map<string, CodeRepositoryRecord[]>;
  /** Every filter, on a whole application. */
  keep: (app: ApplicationRecord) => boolean;
  /** `query` and applicationStatus, on a compact entry's name and status. */
  matches: (app: Pick<ApplicationRecord, 'name' | 'applicationStatus'>) => boolean;
  /** `query`'s names from the trigram index (undefined: not read, or too many). */
  candidates?: NameMatch[];
  /** One applicationStatus: how many of the caller's have it, and their ids when few (applicationsWithStatus). */
  status?: { count: number; selected?: string[] };
}

/** The list's order on applications or their compact entries. */
const byAppSort = (c: AppListContext) =>
  compareBy(
    applicationSortValue(c.sortField, c.repos),
    (a: Pick<ApplicationRecord, 'applicationId'>) => a.applicationId,
    c.sortDir,
  );

// ---- One executor per plan kind (list-plan.ts ApplicationListPlan)

/** `set`: a few applications read whole by key, sorted in memory. */
async function applicationSetPage(plan: Extract<ApplicationListPlan, { kind: 'set' }>, c: AppListContext) {
  const ids = {
    applicationIds: () => c.q.appIds,
    queryNames: () => c.candidates!.map((m) => m.applicationId),
    applicationStatus: () => c.status!.selected!,
  };
  return pageOf((await getApplications(ids[plan.source]())).filter(c.keep).sort(byAppSort(c)), c.request);
}

/**
 * `memory`: every application of the caller's, filtered and sorted in memory. Compact entries (a query matching many
 * applications, or under three characters; at most ten times the matches), the page then read whole; or whole items
 * from the buckets' whole-item partitions, when a page is a good part of them (a Query is charged by the kilobytes it
 * reads, a BatchGetItem by the item).
 */
async function applicationsInMemoryPage(
  plan: Extract<ApplicationListPlan, { kind: 'memory' }>,
  c: AppListContext,
): Promise<PageOf<ApplicationRecord>> {
  const { orgId, scope } = c;
  if (plan.items === 'whole') {
    const all = (await Promise.all(scope!.buckets.map((b) => wholeApplicationsOfBucket(orgId, b)))).flat();
    return pageOf(all.filter((app) => !app.deleting && c.keep(app)).sort(byAppSort(c)), c.request);
  }
  // Every compact entry of the caller's buckets, each bucket's as segments side by side (its count known): one round
  // trip, where one 1 MB page after another took one per page.
  const entries = (await Promise.all(scope!.buckets.map((b) => bucketApplicationEntries(orgId, b)))).flat();
  const kept = entries
    .map((entry) => ({ ...entry, applicationStatus: entry.applicationStatus ?? ('ENV_INCOMPLETE' as const) }))
    .filter((entry) => scope!.keep(entry) && c.matches(entry));
  const { items, totalCount, hasNext } = pageOf(kept.sort(byAppSort(c)), c.request);
  return { items: await applicationsOf(items, c.keep), totalCount, hasNext };
}

/** `index`: the buckets' order walked as far as the page, filtering; the total from the counters or the status count. */
async function walkApplicationIndex(plan: Extract<ApplicationListPlan, { kind: 'index' }>, c: AppListContext) {
  const scope = c.scope!;
  const entryKeep = (entry: AppEntry) =>
    scope.keep(entry) &&
    c.matches({ name: entry.name, applicationStatus: entry.applicationStatus ?? 'ENV_INCOMPLETE' });
  const walkLimit = readAhead(c.request); // grows per call (list-entries.ts)
  const stream =
    plan.order === 'applicationValue'
      ? applicationsByRepositoryValue(c, walkLimit)
      : applicationsInOrder(c.orgId, scope, plan.order, c.sortDir === 'ASC', walkLimit, { prefetchedFirstCall: true });
  const streamed = await pageFromStream(stream, entryKeep, c.request);
  const totalCount = streamed.exhausted
    ? streamed.seen
    : plan.total === 'applicationStatus'
      ? c.status!.count
      : scope.counts.applications;
  return { items: await applicationsOf(streamed.items, c.keep), totalCount, hasNext: streamed.hasNext };
}

function executeApplicationPlan(plan: ApplicationListPlan, c: AppListContext): Promise<PageOf<ApplicationRecord>> {
  switch (plan.kind) {
    case 'set':
      return applicationSetPage(plan, c);
    case 'memory':
      return applicationsInMemoryPage(plan, c);
    case 'index':
      return walkApplicationIndex(plan, c);
  }
}

/**
 * listApplicationsV2's own reads in its first round trip, beside the rate limit and the authorization: the caller's
 * scope (listScope's first reads; not needed when appIds names the applications), `query`'s name samples
 * (nameSampleReads; read whenever the scope is) and, for a repository sort, the organization's repositories.
 */
export const applicationListReads: OperationReads = ({ ids, query }) => {
  if (!ids.orgId) return {};
  const repoSort = query.sortField === 'mappedRepositoryCount' || query.sortField === 'thirtyDayCommitActivity';
  const parsed = listApplicationsV2Query.safeParse(query).data;
  const text = parsed && !parsed.appIds.length ? parsed.query?.toLowerCase() : undefined;
  const names = text ? nameSampleReads(ids.orgId, ['APP'], text) : {};
  return {
    queries: [
      ...(query.appIds ? [] : listScopeReads(ids.orgId)),
      ...(repoSort ? [codeRepositoriesRead(ids.orgId)] : []),
      ...(names.queries ?? []),
    ],
    firstCalls: names.firstCalls,
  };
};

export async function listApplicationsV2(caller: Caller, orgId: string, q: ListApplicationsV2Query) {
  const membership = await caller.authorize(orgId);
  const sortField: AppSortField = q.sortField ?? 'applicationName';
  const sortDir: SortDirection = q.sortDir === 'DESC' ? 'DESC' : 'ASC';
  const request = v2PageRequest(q.page, q.pageToken, q.pageSize);
  const text = q.query?.toLowerCase() ?? '';
  const matches = (app: Pick<ApplicationRecord, 'name' | 'applicationStatus'>) =>
    (q.applicationStatus.length === 0 || q.applicationStatus.includes(app.applicationStatus)) &&
    app.name.toLowerCase().includes(text);
  const keep = (app: ApplicationRecord) =>
    app.organizationId === orgId &&
    canSeeTeamResource(membership, app.teamId) &&
    q.applicationTypes.includes(app.applicationType) &&
    (q.teamIds.length === 0 || (!!app.teamId && q.teamIds.includes(app.teamId))) &&
    (q.appIds.length === 0 || q.appIds.includes(app.applicationId)) &&
    matches(app);
  const repoSort = sortField === 'mappedRepositoryCount' || sortField === 'thirtyDayCommitActivity';
  const [repos, scope] = await Promise.all([
    repoSort ? repositoriesByApplication(orgId) : new Map<string, CodeRepositoryRecord[]>(),
    q.appIds.length ? undefined : listScope(orgId, membership, q.applicationTypes, q.teamIds, { byApplication: false }),
  ]);
  // What the plan needs to know (list-plan.ts; docs/API.md, How a list is planned). `query` of three characters or
  // more: the applications whose name contains it, from the name trigram index (applicationNameReadLimit).
  const candidates =
    scope && text
      ? await namesContaining(orgId, 'APP', text, applicationNameReadLimit(scope.counts), { keepRead: true })
      : undefined;
  // applicationStatus alone, with one status: its count from the applications without environments (usually few:
  // a prefix of the status index per bucket) and the counters; the applications themselves when they are few.
  if (scope && !text && q.applicationStatus.length === 1) speculateStatusWalk(orgId, q, request, scope);
  const status =
    scope && !text && q.applicationStatus.length === 1
      ? await applicationsWithStatus(orgId, scope, q.applicationStatus[0])
      : undefined;
  const plan = planApplicationList(q, request, {
    applications: scope?.counts.applications ?? 0,
    nameMatches: candidates?.length,
    status: status && { count: status.count, selected: !!status.selected },
  });
  recordListPlan(plan);
  const context = { orgId, q, request, sortField, sortDir, scope, repos, keep, matches, candidates, status };
  const page = await executeApplicationPlan(plan, context);
  return applicationsV2Answer(orgId, q, request, sortField, sortDir, page);
}

/**
 * applicationStatus=ACTIVE over more applications than are few (isFew): the applications with it are the many, and
 * the plan walks its order unless nearly all of them lack environments (applicationsWithStatus reads those first).
 * Each bucket's first call of that walk (walkApplicationIndex) is made now, beside that read, as it will most likely
 * be: read for nothing (half a read unit a bucket for a page of 10) when the plan reads the few instead.
 */
function speculateStatusWalk(orgId: string, q: ListApplicationsV2Query, request: PageRequest, scope: ListScope) {
  const { applications } = scope.counts;
  if (q.applicationStatus[0] !== 'ACTIVE' || isFew(applications, applications)) return;
  const plan = planApplicationList(q, request, { applications, status: { count: applications, selected: false } });
  if (plan.kind !== 'index' || plan.order === 'applicationValue') return;
  const forward = q.sortDir !== 'DESC';
  for (const bucket of scope.buckets)
    prefetchFirstCall(applicationEntriesQuery(orgId, bucket, plan.order, forward, readAhead(request)));
}

/**
 * The caller's applications with `status`: how many, and their ids when they are few (fewOf; else `selected` is
 * undefined and the list walks its order, filtering). The applications
 * without environments (ENV_INCOMPLETE, usually few) are read from the status index (a prefix per bucket); ACTIVE
 * ones are the rest of the counters' count, and read (prefix `ACTIVE#`) only when few.
 */
async function applicationsWithStatus(
  orgId: string,
  scope: ListScope,
  status: ApplicationRecord['applicationStatus'],
): Promise<{ count: number; selected?: string[] }> {
  const few = (n: number) => isFew(n, scope.counts.applications);
  const incomplete = await applicationIdsWithStatus(orgId, scope, 'ENV_INCOMPLETE');
  if (status === 'ENV_INCOMPLETE')
    return { count: incomplete.length, selected: few(incomplete.length) ? incomplete : undefined };
  const count = scope.counts.applications - incomplete.length;
  return { count, selected: few(count) ? await applicationIdsWithStatus(orgId, scope, 'ACTIVE') : undefined };
}

/**
 * listApplicationsV1's own reads in its first round trip, beside the rate limit and the authorization (the query
 * string alone decides the plan): listScope's first reads when it walks the applications, the name index's first
 * call for each of `envs` when they select them.
 */
export const applicationListV1Reads: OperationReads = ({ ids, query }) => {
  const q = ids.orgId ? listApplicationsV1Query.safeParse(query).data : undefined;
  const plan = q && planDeprecatedApplicationList(q);
  if (plan?.kind === 'byApplication') return { queries: listScopeReads(ids.orgId) };
  if (plan?.kind !== 'set' || plan.source !== 'environmentNames') return {};
  const names = [...new Set(q!.envs.map((n) => n.toLowerCase()))];
  return { firstCalls: names.map((name) => environmentEntriesNamedQuery(ids.orgId, name)) };
};

/**
 * Deprecated List Applications (listApplications; docs/API.md, Deprecated lists): one entry per application-environment
 * (an application without environments alone), by (application name, environment name) or by (application id,
 * environment id). Without appIds or envs filters, the applications are walked in order (compact, every type, the
 * caller's teams) and skipped whole by their entry counts; only the page's applications have their environments read.
 */
export async function listApplicationsV1(caller: Caller, orgId: string, q: ListApplicationsV1Query) {
  const membership = await caller.authorize(orgId);
  const request = { page: q.pageToken, size: q.pageSize };
  const byId = q.sortField === 'id';
  const forward = q.sortDir !== 'desc';
  const names = q.envs.map((n) => n.toLowerCase());
  type Entry = { app: ApplicationRecord; env?: EnvironmentRecord };
  const value = byId
    ? (e: Entry) => `${e.app.applicationId}#${e.env?.environmentId ?? ''}`
    : (e: Entry) =>
        `${nameOrderKey(e.app.name, e.app.applicationId)}#${e.env ? nameOrderKey(e.env.name, e.env.environmentId) : ''}`;
  const visible = (app: ApplicationRecord) =>
    app.organizationId === orgId &&
    canSeeTeamResource(membership, app.teamId) &&
    (q.appIds.length === 0 || q.appIds.includes(app.applicationId)) &&
    (q.teamIds.length === 0 || (!!app.teamId && q.teamIds.includes(app.teamId)));
  /** An application's entries in list order. */
  const entriesOf = (app: ApplicationRecord, envs: EnvironmentRecord[]): Entry[] => {
    const shown = envs.filter((env) => names.length === 0 || names.includes(env.name.toLowerCase()));
    if (names.length && shown.length === 0) return [];
    const list = q.ignoreEnvs || shown.length === 0 ? [{ app }] : shown.map((env) => ({ app, env }));
    return list.sort(compareBy(value, value, forward ? 'ASC' : 'DESC'));
  };

  const plan = planDeprecatedApplicationList(q);
  recordListPlan(plan);
  let page: { items: Entry[]; totalCount: number; hasNext: boolean };
  if (plan.kind === 'set') {
    // Only the named applications, or those with environments of those names (the name index): what matches.
    const envs = names.length
      ? (await Promise.all([...new Set(names)].map((n) => environmentEntriesNamed(orgId, n)))).flat()
      : [];
    const appIds = plan.source === 'applicationIds' ? q.appIds : [...new Set(envs.map((e) => e.applicationId))];
    const apps = (await getApplications(appIds)).filter(visible);
    const entries = (
      await Promise.all(
        apps.map(async (app) =>
          entriesOf(app, q.ignoreEnvs && !names.length ? [] : await environmentsOfApp(app.applicationId)),
        ),
      )
    ).flat();
    entries.sort(compareBy(value, value, forward ? 'ASC' : 'DESC'));
    page = pageOf(entries, request);
  } else {
    const scope = await listScope(orgId, membership, [...APPLICATION_TYPES], q.teamIds, { byApplication: false });
    const apps = applicationsInOrder(orgId, scope, plan.order, forward, Math.min(1000, readAhead(request)));
    const entriesOfCount = (app: ListEntry) =>
      !scope.keep(app) ? 0 : q.ignoreEnvs ? 1 : Math.max(1, app.environmentCount ?? 0);
    const start = request.page * request.size;
    // Every application is one entry, or one per environment: applications without environments count once (the
    // status index counts them, beside the walk).
    const incomplete = q.ignoreEnvs
      ? Promise.resolve(0)
      : applicationIdsWithStatus(orgId, scope, 'ENV_INCOMPLETE').then((ids) => ids.length);
    const atLeast = q.ignoreEnvs ? scope.counts.applications : scope.counts.environments;
    const covering = () => applicationsCovering(apps, entriesOfCount, start, request.size);
    // A page past the end (docs/COMPATIBILITY.md "Paging": clients read one) reads nothing: the counters tell a page
    // within the total; only one past them waits for the count.
    const [totalCount, onPage] = await Promise.all([
      incomplete.then((n) => atLeast + n),
      start < atLeast ? covering() : incomplete.then((n) => (start < atLeast + n ? covering() : [])),
    ]);
    const [pageApps, envs] = await Promise.all([
      applicationsOf(
        onPage.map((p) => p.entry),
        visible,
      ),
      Promise.all(onPage.map(({ entry }) => (q.ignoreEnvs ? [] : environmentsOfApp(entry.applicationId)))),
    ]);
    const items = onPage.flatMap(({ entry, skip, take }, i) => {
      const app = pageApps.find((a) => a.applicationId === entry.applicationId);
      return app ? entriesOf(app, envs[i]).slice(skip, skip + take) : [];
    });
    page = { items, totalCount, hasNext: start + request.size < totalCount };
  }
  return {
    applications: page.items.map(({ app, env }) => toApplication(app, env)),
    nextPageToken: v1NextPageToken(request, page.totalCount),
    totalCount: page.totalCount,
  };
}
