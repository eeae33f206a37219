import { auditEntry } from '../audit/entries.ts';
import { transactWrite } from '../db/transactions.ts';
import { cancelledItems } from '../db/items.ts';
import { retryOnConflict, transactionConflict } from '../db/retry.ts';
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound, unauthorized } from '../errors.ts';
import {
  canSeeTeamResource,
  type ApplicationRecord,
  appInfo,
  repositoryView,
  codeRepositoryId,
  type CodeRepositoryRecord,
} from '../applications/model.ts';
import { applicationsCreation, getApplications } from '../applications/application-repository.ts';
import { visibleApplications } from '../applications/code-repository-views.ts';
import { derivedWrites } from '../db/entity-write.ts';
import { applicationOwners } from '../applications/entities.ts';
import { compareBy, nameOrderKey, pageOf, v2Envelope, v2PageRequest, type SortDirection } from '../lists.ts';
import { holdsPermission, type Caller, type Membership } from '../context/caller.ts';
import type {
  CreateAppsForRepos,
  ListRepositoriesQuery,
  RECENT_COMMIT_TIMEFRAMES,
  RegisterRepository,
  RepoFilter,
} from './inputs.ts';
import { environmentsOfApp } from '../applications/environment-repository.ts';
import { hostedDescriptionsOf } from '../hosted-assets/repository.ts';
import {
  codeRepositoriesOfOrg,
  getCodeRepositories,
  getCodeRepository,
  putCodeRepository,
} from '../applications/code-repository-store.ts';
import { MAX_APPS_FOR_REPOS, DAY, RECENT_SCAN_MS } from './model.ts';

// Source-code repositories (the public API's Repositories group). Without a source-control integration they are
// records an organization registers (PUT /api/v1/org/{orgId}/repos, our own operation), each mapped to the
// organization's applications. A repository belongs to the organization; the applications it lists follow the
// team rules: a caller sees, and can map or unmap, only the applications of its teams (and unowned ones).

/** Read-modify-write of one repository with its audit entry, retried when another request changed it first. */
async function commitRepository(
  orgId: string,
  repoId: string,
  build: (
    current: CodeRepositoryRecord | undefined,
  ) => Promise<[CodeRepositoryRecord, ...Parameters<typeof transactWrite>[0]] | undefined>,
) {
  await retryOnConflict(
    {
      conflict: transactionConflict(),
      exhausted: () => conflict(`repository ${repoId} was changed concurrently; retry`),
    },
    async () => {
      const built = await build(await getCodeRepository(orgId, repoId));
      if (!built) return;
      const [next, ...rest] = built;
      await transactWrite([putCodeRepository(next), ...rest]);
    },
  );
}

/** PUT /api/v1/org/{orgId}/repos (ours): registers the repository, or updates the one of that source and name. */
export async function registerRepository(caller: Caller, orgId: string, body: RegisterRepository) {
  const membership = await caller.authorize(orgId);
  const repoId = codeRepositoryId(orgId, body.repoSource, body.name);
  const openApiSpecs = body.openApiSpecs && (await registeredSpecs(orgId, membership, body.openApiSpecs));
  let stored: CodeRepositoryRecord | undefined;
  await commitRepository(orgId, repoId, async (current) => {
    const now = Date.now();
    stored = {
      repoId,
      organizationId: orgId,
      name: body.name,
      repoSource: body.repoSource,
      remoteUrl: body.remoteUrl ?? current?.remoteUrl ?? '',
      defaultBranch: body.defaultBranch ?? current?.defaultBranch ?? '',
      languages: body.languages ?? current?.languages ?? [],
      frameworkNames: body.frameworkNames ?? current?.frameworkNames ?? [],
      commitCount: body.commitCount ?? current?.commitCount ?? 0,
      lastCommitTimestamp: body.lastCommitTimestamp ?? current?.lastCommitTimestamp ?? 0,
      appIds: current?.appIds ?? [],
      openApiSpecs: openApiSpecs ?? current?.openApiSpecs ?? [],
      revision: (current?.revision ?? 0) + 1,
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
    return [
      stored,
      auditEntry(caller, orgId, 'REPO_MODIFIED', {
        repoId,
        repoName: body.name,
        repoSource: body.repoSource,
        created: !current,
      }),
    ];
  });
  const apps = await visibleApplications(orgId, membership, stored!.appIds);
  return repositoryView(stored!, [...apps.values()]);
}

/**
 * A repository's API descriptions as registered: each `oasId` must be an uploaded description of the organization
 * that the caller may see (the application's team rules), else 400 naming it. Each (oasId, path) once.
 */
async function registeredSpecs(
  orgId: string,
  membership: Membership,
  specs: { oasId: string; sourceRootPath: string }[],
) {
  const unique = [
    ...new Map(
      specs.map((spec) => [
        `${spec.oasId.toLowerCase()}\n${spec.sourceRootPath}`,
        { ...spec, oasId: spec.oasId.toLowerCase() },
      ]),
    ).values(),
  ];
  const oasIds = [...new Set(unique.map((spec) => spec.oasId))];
  const [apps, uploaded] = await Promise.all([
    visibleApplications(orgId, membership, oasIds),
    hostedDescriptionsOf(oasIds),
  ]);
  const unknown = oasIds.filter((id) => !apps.has(id) || !uploaded.has(id));
  if (unknown.length)
    throw badRequest(
      `openApiSpecs: no uploaded API description ${unknown.join(', ')} in this organization (upload it with POST /api/v1/oas/{appId}/upload)`,
    );
  return unique;
}

/**
 * POST /api/v1/org/{orgId}/repo/{repoId}/applications: the repository's applications become `appIds` (400 naming
 * any that is not an application of the organization the caller may see). Mappings to applications the caller may
 * not see are kept: it cannot see them, so it cannot have meant to remove them.
 */
export async function replaceRepositoryApplications(caller: Caller, orgId: string, repoId: string, appIds: string[]) {
  const membership = await caller.authorize(orgId);
  const requested = [...new Set(appIds.map((id) => id.toLowerCase()))];
  const visible = await visibleApplications(orgId, membership, requested);
  const unknown = requested.filter((id) => !visible.has(id));
  if (unknown.length) throw badRequest(`appInfos: no application ${unknown.join(', ')} in this organization`);
  await commitRepository(orgId, repoId, async (current) => {
    if (!current) throw notFound(`repository ${repoId} not found in organization ${orgId}`);
    const currentApps = await getApplications(current.appIds);
    const hidden = currentApps.filter((a) => !canSeeTeamResource(membership, a.teamId)).map((a) => a.applicationId);
    const next = {
      ...current,
      appIds: [...hidden, ...requested],
      revision: current.revision + 1,
      updatedAt: Date.now(),
    };
    const before = new Set(current.appIds);
    const added = requested.filter((id) => !before.has(id));
    const removed = current.appIds.filter((id) => !next.appIds.includes(id));
    if (added.length === 0 && removed.length === 0) return undefined;
    return [
      next,
      auditEntry(caller, orgId, 'APPLICATIONS_ADDED_FOR_REPOS', {
        repoId,
        repoName: current.name,
        addedAppIds: added,
        removedAppIds: removed,
      }),
    ];
  });
  return { orgId, repoId, appInfos: requested.map((id) => appInfo(visible.get(id)!)) };
}

/**
 * PUT /api/v1/org/{orgId}/repos/apps: creates the named applications (ENV_INCOMPLETE, for the caller's team as
 * createApplication does; write:application is needed too) and maps each to its repository, in one transaction:
 * the applications, the counters, the team, the repositories (conditioned on the revisions read), APPLICATION_ADDED
 * per application and APPLICATIONS_ADDED_FOR_REPOS per repository.
 */
export async function createApplicationsForRepositories(caller: Caller, orgId: string, body: CreateAppsForRepos) {
  const membership = await caller.authorize(orgId);
  if (!holdsPermission(caller, membership, 'write:application')) throw unauthorized();
  const repoIds = body.newRepositoryApps.map((entry) => entry.repoId.toLowerCase());
  const repeated = repoIds.filter((id, i) => repoIds.indexOf(id) !== i);
  if (repeated.length) throw badRequest(`newRepositoryApps: repository ${repeated[0]} is listed twice`);
  const total = body.newRepositoryApps.reduce((sum, entry) => sum + entry.appInfos.length, 0);
  if (total > MAX_APPS_FOR_REPOS)
    throw badRequest(`newRepositoryApps: ${total} applications; at most ${MAX_APPS_FOR_REPOS} per request`);
  const repos = new Map((await getCodeRepositories(orgId, repoIds)).map((repo) => [repo.repoId, repo]));
  const unknown = repoIds.filter((id) => !repos.has(id));
  if (unknown.length) throw badRequest(`newRepositoryApps: no repository ${unknown.join(', ')} in this organization`);

  const teamId = membership.teamIds[0]; // as createApplication: the caller's first team owns what it creates
  const now = Date.now();
  const created = body.newRepositoryApps.map((entry) => ({
    repo: repos.get(entry.repoId.toLowerCase())!,
    apps: entry.appInfos.map(({ name }): ApplicationRecord => ({
      applicationId: randomUUID(),
      organizationId: orgId,
      name,
      applicationType: 'STANDARD',
      applicationStatus: 'ENV_INCOMPLETE',
      teamId,
      environmentCount: 0,
      createdAt: now,
    })),
  }));
  const apps = created.flatMap((entry) => entry.apps);
  const items = [
    // Up to 20 applications: no room for their name postings, so their names go to the unindexed name partition.
    ...applicationsCreation(apps, { indexName: false }),
    // The team lists its applications: it gains these (and must still exist).
    ...derivedWrites(applicationOwners, new Map(), new Map(apps.map((app) => [app.applicationId, teamId])), {
      organizationId: orgId,
    }),
    ...created.map(({ repo, apps: added }) =>
      putCodeRepository({
        ...repo,
        appIds: [...repo.appIds, ...added.map((a) => a.applicationId)],
        revision: repo.revision + 1,
        updatedAt: now,
      }),
    ),
  ];
  for (const app of apps)
    items.push(auditEntry(caller, orgId, 'APPLICATION_ADDED', { applicationId: app.applicationId, appName: app.name }));
  for (const { repo, apps: added } of created) {
    items.push(
      auditEntry(caller, orgId, 'APPLICATIONS_ADDED_FOR_REPOS', {
        repoId: repo.repoId,
        repoName: repo.name,
        addedAppIds: added.map((a) => a.applicationId),
        removedAppIds: [],
      }),
    );
  }
  try {
    await transactWrite(items);
  } catch (error) {
    if (
      cancelledItems(error)?.some(({ code }) => code === 'ConditionalCheckFailed' || code === 'TransactionConflict')
    ) {
      throw conflict('a repository or the team changed meanwhile; retry');
    }
    throw error;
  }
  return {
    orgId,
    newRepositoryApps: created.map(({ repo, apps: added }) => ({ repoId: repo.repoId, appInfos: added.map(appInfo) })),
  };
}

function repositorySortValue(
  field: ListRepositoriesQuery['sortField'],
): (r: { repo: CodeRepositoryRecord; apps: ApplicationRecord[] }) => string | number {
  switch (field) {
    case 'id':
      return ({ repo }) => repo.repoId;
    case 'lastCommit':
      return ({ repo }) => repo.lastCommitTimestamp;
    case 'commitCount':
      return ({ repo }) => repo.commitCount;
    case 'stackHawkApplication':
      return ({ apps }) => (apps[0] ? nameOrderKey(apps[0].name, apps[0].applicationId) : '');
    case 'fullName':
    case undefined:
      return ({ repo }) => nameOrderKey(repo.name, repo.repoId);
    default:
      return () => 0; // contributors, scores, statuses and sensitive data need an integration: the id decides
  }
}

/**
 * Filters whose data only a source-control integration produces (from the code): refused, saying why, rather than
 * answered as if no repository matched. The others are answered from the registered records.
 */
type IntegrationOnlyFilter = 'WEB_APP_REPOS' | 'UNCOVERED_REPOS' | 'REPOS_WITH_INSIGHTS' | 'REPOS_WITH_NO_INSIGHTS';
const INTEGRATION_ONLY_FILTERS: Record<IntegrationOnlyFilter, string> = {
  WEB_APP_REPOS: 'needs HawkScores, which a source-control integration computes from the code; none is configured',
  UNCOVERED_REPOS:
    'needs attack-surface detection from the code (a source-control integration); here a repository is in the attack surface exactly when it is mapped to an application',
  REPOS_WITH_INSIGHTS: 'needs code insights, which only a source-control integration supplies; none is configured',
  REPOS_WITH_NO_INSIGHTS: 'needs code insights, which only a source-control integration supplies; none is configured',
};
const INTEGRATION_ONLY_PARAMS = {
  langIds: 'languages are registered by name here and have no ids; filter with query or frameworkNames',
  topicIds: 'repository topics come from a source-control integration; none is configured',
  integrationIds: 'no source-control integration is configured; repositories are registered records',
  sensitiveDataTags: "sensitive-data tags come from a source-control integration's code analysis; none is configured",
} as const;
const COMMIT_TIMEFRAMES: Record<(typeof RECENT_COMMIT_TIMEFRAMES)[number], ((age: number) => boolean) | undefined> = {
  LAST_COMMIT_DATE_UNSPECIFIED: undefined,
  LAST_24_HOURS: (age) => age <= DAY,
  LAST_7_DAYS: (age) => age <= 7 * DAY,
  LAST_14_DAYS: (age) => age <= 14 * DAY,
  LAST_30_DAYS: (age) => age <= 30 * DAY,
  OVER_30_DAYS: (age) => age > 30 * DAY,
};

interface Joined {
  repo: CodeRepositoryRecord;
  apps: ApplicationRecord[];
}

/** The latest scan time of each of these applications (0: never scanned), from their environments. */
async function lastScanOfApplications(appIds: string[]): Promise<Map<string, number>> {
  const entries = await Promise.all(
    appIds.map(
      async (appId) =>
        [appId, Math.max(0, ...(await environmentsOfApp(appId)).map((env) => env.lastScanTimestamp ?? 0))] as const,
    ),
  );
  return new Map(entries);
}

/** The repository filters of a list request, as predicates; 400 for those only an integration could answer. */
async function repositoryFilters(q: ListRepositoriesQuery, joined: Joined[]): Promise<((j: Joined) => boolean)[]> {
  for (const [param, why] of Object.entries(INTEGRATION_ONLY_PARAMS)) {
    if ((q[param as keyof typeof INTEGRATION_ONLY_PARAMS] as string[]).length > 0) throw badRequest(`${param}: ${why}`);
  }
  const named: [string, RepoFilter][] = [
    ...(['repoFilter', 'appFilter', 'webAppFilter', 'uncoveredRepoFilter'] as const).flatMap((param) =>
      q[param] ? [[param, q[param]] as [string, RepoFilter]] : [],
    ),
    ...q.filters.map((value): [string, RepoFilter] => ['filters', value]),
  ];
  for (const [param, value] of named) {
    const why = INTEGRATION_ONLY_FILTERS[value as IntegrationOnlyFilter];
    if (why) throw badRequest(`${param}: ${value} ${why}`);
  }
  const values = new Set(named.map(([, value]) => value));
  const scans = ['REPOS_WITH_APP_SCANS', 'REPOS_WITH_NO_APP_SCANS', 'REPOS_WITH_RECENT_SCANS'].some((v) =>
    values.has(v as RepoFilter),
  )
    ? await lastScanOfApplications([...new Set(joined.flatMap((j) => j.apps.map((a) => a.applicationId)))])
    : new Map<string, number>();
  const now = Date.now();
  const lastScan = (j: Joined) => Math.max(0, ...j.apps.map((a) => scans.get(a.applicationId) ?? 0));
  const predicates: Record<Exclude<RepoFilter, IntegrationOnlyFilter>, (j: Joined) => boolean> = {
    ALL_REPOS: () => true,
    MAPPED_REPOS: (j) => j.apps.length > 0,
    UNMAPPED_REPOS: (j) => j.apps.length === 0,
    HIDDEN_REPOS: () => false, // nothing hides a registered repository
    REPOS_IN_ATTACK_SURFACE: (j) => j.apps.length > 0, // isInAttackSurface: mapped to an application
    REPOS_NOT_IN_ATTACK_SURFACE: (j) => j.apps.length === 0,
    REPOS_WITH_APP_SCANS: (j) => lastScan(j) > 0,
    REPOS_WITH_NO_APP_SCANS: (j) => lastScan(j) === 0,
    REPOS_WITH_RECENT_SCANS: (j) => lastScan(j) > 0 && now - lastScan(j) <= RECENT_SCAN_MS,
    REPOS_WITH_GENERATED_OAS: (j) => (j.repo.openApiSpecs?.length ?? 0) > 0,
  };
  const filters: ((j: Joined) => boolean)[] = [...values].map((value) => predicates[value as keyof typeof predicates]);
  const timeframe = q.recentCommitTimeframe && COMMIT_TIMEFRAMES[q.recentCommitTimeframe];
  // A repository registered without its last commit's time matches no timeframe.
  if (timeframe) filters.push(({ repo }) => repo.lastCommitTimestamp > 0 && timeframe(now - repo.lastCommitTimestamp));
  return filters;
}

/** GET /api/v1/org/{orgId}/repos: `repository.SearchRepositoriesResponse`, page keys `p_<n>`. */
export async function listRepositories(caller: Caller, orgId: string, q: ListRepositoriesQuery) {
  const membership = await caller.authorize(orgId);
  const request = v2PageRequest(q.page, q.pageToken, q.pageSize);
  const sortDir: SortDirection = q.sortDir === 'DESC' ? 'DESC' : 'ASC';
  const repos = await codeRepositoriesOfOrg(orgId);
  const apps = await visibleApplications(
    orgId,
    membership,
    repos.flatMap((r) => r.appIds),
  );
  const text = q.query?.toLowerCase() ?? '';
  const frameworks = q.frameworkNames.map((f) => f.toLowerCase());
  const all = repos.map((repo) => ({ repo, apps: repo.appIds.flatMap((id) => apps.get(id) ?? []) }));
  const filters = await repositoryFilters(q, all);
  const joined = all
    .filter(
      ({ repo }) =>
        repo.name.toLowerCase().includes(text) &&
        (q.repositorySource.length === 0 || q.repositorySource.includes(repo.repoSource as never)) &&
        (frameworks.length === 0 || repo.frameworkNames.some((f) => frameworks.includes(f.toLowerCase()))),
    )
    .filter((j) => filters.every((keep) => keep(j)))
    .sort(compareBy(repositorySortValue(q.sortField), ({ repo }) => repo.repoId, sortDir));
  const page = pageOf(joined, request);
  const filterValues = [
    q.repoFilter ?? 'ALL_REPOS',
    ...[q.appFilter, q.webAppFilter, q.uncoveredRepoFilter, ...q.filters].filter((v) => v !== undefined),
  ];
  const envelope = v2Envelope(
    {
      request,
      query: q.query ?? '',
      sortField: q.sortField ?? 'fullName',
      sortDir,
      filters: [
        { name: 'repoFilter', values: [...new Set(filterValues)] },
        { name: 'recentCommitTimeframe', values: q.recentCommitTimeframe ? [q.recentCommitTimeframe] : [] },
      ],
    },
    page.totalCount,
    page.hasNext,
  );
  return {
    orgId,
    repositories: page.items.map(({ repo, apps: mapped }) => repositoryView(repo, mapped)),
    ...envelope,
    nextPageKey: page.hasNext ? `p_${request.page + 1}` : '',
    prevPageKey: '', // "will always be blank from the API response" (public description)
  };
}

/** GET .../repo/{repoId}/sensitive/list: nothing supplies sensitive-data findings yet, so the list is empty. */
export async function repositorySensitiveData(
  orgId: string,
  repoId: string,
  q: { page?: string; pageToken: number; pageSize: number; query?: string; sortDir?: string; sortField?: string },
) {
  if (!(await getCodeRepository(orgId, repoId)))
    throw notFound(`repository ${repoId} not found in organization ${orgId}`);
  const request = v2PageRequest(q.page, q.pageToken, q.pageSize);
  const sortDir: SortDirection = q.sortDir === 'DESC' ? 'DESC' : 'ASC';
  return {
    sensitiveWords: [],
    ...v2Envelope(
      { request, query: q.query ?? '', sortField: q.sortField ?? 'matchTerm', sortDir, filters: [] },
      0,
      false,
    ),
  };
}
