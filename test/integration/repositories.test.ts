import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { auditEntriesOf, json30, seedApplication, setMembership } from './hosted-assets-helpers.ts';
import { getProtobuf } from './protobuf-helpers.ts';
import { createApp, startScan } from './scan-helpers.ts';
import { newTeam } from './team-helpers.ts';
import type { Permission } from '../../shared/context/permissions.ts';

// Repositories: records an organization registers (our PUT .../repos), the public list, application mappings and
// sensitive data, and the fields that depend on them (environment view counts, attack surface, list sorts).

const register = (tenant: Tenant, body: unknown, token = tenant.token) =>
  api('PUT', `/api/v1/org/${tenant.orgId}/repos`, { token, body });
const list = (tenant: Tenant, query: Record<string, string | number> = {}, token = tenant.token) =>
  api('GET', `/api/v1/org/${tenant.orgId}/repos`, { token, query });
const mapApps = (tenant: Tenant, repoId: string, appIds: string[], token = tenant.token) =>
  api('POST', `/api/v1/org/${tenant.orgId}/repo/${repoId}/applications`, {
    token,
    body: { orgId: tenant.orgId, repoId, appInfos: appIds.map((id) => ({ id, name: 'ignored' })) },
  });
const auditTypes = async (orgId: string) => (await auditEntriesOf(orgId)).map((e) => e.userActivityType);

describe('repositories', () => {
  it('registers and updates by source and name, lists with page keys, audited as REPO_MODIFIED', async () => {
    const tenant = await createTenant();
    const created = await register(tenant, {
      name: 'acme/shop',
      repoSource: 'GITHUB',
      remoteUrl: 'https://github.com/acme/shop',
      defaultBranch: 'main',
      languages: [{ name: 'TypeScript', percent: 80 }],
      frameworkNames: ['express'],
      commitCount: 12,
      lastCommitTimestamp: 1_700_000_000_000,
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'acme/shop',
      repoSource: 'GITHUB',
      remoteUrl: 'https://github.com/acme/shop',
      lastCommitBranch: 'main',
      commitCount: 12,
      lastCommitTimestamp: '1700000000000',
      frameworkNames: ['express'],
      languages: [{ name: 'TypeScript', percent: 80 }],
      appInfos: [],
    });
    const repoId = created.body.stackHawkRepoId;
    expect(repoId).toMatch(/^[0-9a-f-]{36}$/);
    const updated = await register(tenant, { name: 'ACME/shop', repoSource: 'GITHUB', commitCount: 30 });
    expect(updated.body).toMatchObject({
      stackHawkRepoId: repoId,
      name: 'ACME/shop',
      commitCount: 30,
      remoteUrl: 'https://github.com/acme/shop',
    });
    expect((await register(tenant, { name: 'acme/shop', repoSource: 'GITLAB' })).body.stackHawkRepoId).not.toBe(repoId);
    await register(tenant, { name: 'acme/api' });

    const all = await list(tenant, { pageSize: 2 });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      orgId: tenant.orgId,
      totalCount: '3',
      hasNext: true,
      nextPageKey: 'p_1',
      prevPageKey: '',
    });
    expect(all.body.repositories.map((r: { name: string }) => r.name.toLowerCase())).toEqual(['acme/api', 'acme/shop']); // by name, case-insensitively
    const second = await list(tenant, { pageSize: 2, page: 'p_1' });
    expect(second.body).toMatchObject({ hasNext: false, hasPrev: true, nextPageKey: '' });
    expect((await list(tenant, { query: 'API' })).body.repositories.map((r: { name: string }) => r.name)).toEqual([
      'acme/api',
    ]);
    expect(
      (
        await list(tenant, { repositorySource: 'GITLAB,GITHUB', sortField: 'commitCount', sortDir: 'DESC' })
      ).body.repositories.map((r: { commitCount: number }) => r.commitCount),
    ).toEqual([30, 0]);
    expect((await list(tenant, { frameworkNames: 'Express' })).body.totalCount).toBe('1');
    const proto = await getProtobuf(
      `/api/v1/org/${tenant.orgId}/repos`,
      tenant.token,
      'repository.SearchRepositoriesResponse',
    );
    expect(proto.decoded).toEqual((await list(tenant)).body);
    expect(await auditTypes(tenant.orgId)).toEqual([
      'REPO_MODIFIED',
      'REPO_MODIFIED',
      'REPO_MODIFIED',
      'REPO_MODIFIED',
    ]);

    const sensitive = await api('GET', `/api/v1/org/${tenant.orgId}/repo/${repoId}/sensitive/list`, {
      token: tenant.token,
    });
    expect(sensitive.body).toMatchObject({ sensitiveWords: [], totalCount: '0', hasNext: false });
    expect(
      (await api('GET', `/api/v1/org/${tenant.orgId}/repo/${randomUUID()}/sensitive/list`, { token: tenant.token }))
        .status,
    ).toBe(404);
  });

  it('maps applications (hawkop body), and the environment views and list sorts follow', async () => {
    const tenant = await createTenant();
    const [busy, quiet] = [
      await createApp(tenant, { name: 'busy', env: 'prod' }),
      await createApp(tenant, { name: 'quiet', env: 'prod' }),
    ];
    const one = (await register(tenant, { name: 'one', commitCount: 5 })).body.stackHawkRepoId;
    const two = (await register(tenant, { name: 'two', commitCount: 7 })).body.stackHawkRepoId;
    const mapped = await mapApps(tenant, one, [busy, busy.toUpperCase()]);
    expect(mapped.status).toBe(200);
    expect(mapped.body).toEqual({
      orgId: tenant.orgId,
      repoId: one,
      appInfos: [
        { id: busy, name: 'busy', appStatus: 'ACTIVE', lastScanId: '', lastScanHost: '', lastScanTimestamp: '0' },
      ],
    });
    expect((await mapApps(tenant, two, [busy, quiet])).status).toBe(200);
    expect((await mapApps(tenant, two, [quiet, busy])).status).toBe(200); // the same set: nothing written

    const repos = await list(tenant, { repoFilter: 'MAPPED_REPOS' });
    expect(
      repos.body.repositories
        .find((r: { name: string }) => r.name === 'two')
        .appInfos.map((a: { id: string }) => a.id)
        .sort(),
    ).toEqual([busy, quiet].sort());
    const envs = await api('GET', `/api/v2/org/${tenant.orgId}/envs`, {
      token: tenant.token,
      query: { sortField: 'thirtyDayCommitActivity', sortDir: 'DESC' },
    });
    expect(
      envs.body.environments.map(
        (e: { applicationName: string; repositoriesCount: number; thirtyDayCommitActivity: number }) => [
          e.applicationName,
          e.repositoriesCount,
          e.thirtyDayCommitActivity,
        ],
      ),
    ).toEqual([
      ['busy', 2, 12],
      ['quiet', 1, 7],
    ]);
    expect(envs.body.environments[0].attackSurface.repositories.map((r: { name: string }) => r.name).sort()).toEqual([
      'one',
      'two',
    ]);
    const apps = await api('GET', `/api/v2/org/${tenant.orgId}/apps`, {
      token: tenant.token,
      query: { sortField: 'mappedRepositoryCount', sortDir: 'ASC' },
    });
    expect(apps.body.applications.map((a: { name: string }) => a.name)).toEqual(['quiet', 'busy']);

    // A repository-sourced API description included in an application is named after its registered repository.
    const oasId = randomUUID();
    const included = await api('POST', `/api/v1/oas/${busy}/mapping`, {
      token: tenant.token,
      body: { oasId, repositoryId: two, sourceRootPath: 'api.yaml', include: true },
    });
    expect(included.body).toEqual({
      appId: busy,
      assets: [{ oasId, repositoryId: two, repositoryName: 'two', sourceRootPath: 'api.yaml' }],
      repoIds: [two],
    });

    expect((await mapApps(tenant, one, [])).status).toBe(200);
    expect(
      (await list(tenant, { repoFilter: 'UNMAPPED_REPOS' })).body.repositories.map((r: { name: string }) => r.name),
    ).toEqual(['one']);
    const audit = (await auditEntriesOf(tenant.orgId))
      .filter((e) => e.userActivityType === 'APPLICATIONS_ADDED_FOR_REPOS')
      .map((e) => JSON.parse(e.payload));
    expect(audit).toEqual([
      { repoId: one, repoName: 'one', addedAppIds: [busy], removedAppIds: [] },
      { repoId: two, repoName: 'two', addedAppIds: [busy, quiet], removedAppIds: [] },
      { repoId: one, repoName: 'one', addedAppIds: [], removedAppIds: [busy] },
    ]);
  });

  it("lists in an environment's attack surface every application mapped to each repository that the caller may see", async () => {
    const tenant = await createTenant();
    const [web, api2] = [
      await createApp(tenant, { name: 'web', env: 'prod' }),
      await createApp(tenant, { name: 'api', env: 'prod' }),
    ];
    const hidden = await createApp(tenant, { name: 'hidden', env: 'prod' });
    const team = await newTeam(tenant.orgId, tenant.token, {
      name: 'owners of hidden',
      userIds: [],
      applicationIds: [hidden],
    });
    const shared = (await register(tenant, { name: 'shared' })).body.stackHawkRepoId;
    const permissions: Permission[] = ['read:repository', 'write:repository', 'read:application'];
    await setMembership(tenant.orgId, tenant.userId, permissions, []);
    const insider = await addUserTo(tenant.orgId);
    await setMembership(tenant.orgId, insider.userId, permissions, [team.id]);
    expect((await mapApps(tenant, shared, [web, api2, hidden], insider.token)).status).toBe(200);

    const surfaceOf = async (token: string, appName: string) => {
      const envs = await api('GET', `/api/v2/org/${tenant.orgId}/envs`, { token });
      const env = envs.body.environments.find((e: { applicationName: string }) => e.applicationName === appName);
      return env.attackSurface.repositories.map((r: { name: string; appInfos: { name: string }[] }) => [
        r.name,
        r.appInfos.map((a) => a.name),
      ]);
    };
    // Before, only the environment's own application was listed.
    expect(await surfaceOf(tenant.token, 'web')).toEqual([['shared', ['web', 'api']]]); // not the team's application
    expect(await surfaceOf(tenant.token, 'api')).toEqual([['shared', ['web', 'api']]]);
    expect(await surfaceOf(insider.token, 'web')).toEqual([['shared', ['web', 'api', 'hidden']]]); // a member of its team
  });

  it('answers the public filters from the registered records, and 400 saying why for those only an integration could answer', async () => {
    const tenant = await createTenant();
    const [scanned, idle] = [
      await createApp(tenant, { name: 'scanned', env: 'prod' }),
      await createApp(tenant, { name: 'idle', env: 'prod' }),
    ];
    await startScan(tenant.token, scanned, { env: 'prod' });
    const day = 24 * 60 * 60 * 1000;
    const ids: Record<string, string> = {};
    for (const [name, lastCommitTimestamp] of [
      ['a', 0],
      ['b', 0],
      ['c', Date.now() - 2 * day],
      ['d', Date.now() - 40 * day],
    ] as const) {
      ids[name] = (await register(tenant, { name, lastCommitTimestamp })).body.stackHawkRepoId;
    }
    await mapApps(tenant, ids.a, [scanned]);
    await mapApps(tenant, ids.b, [idle]);
    const names = async (query: Record<string, string>) => {
      const out = await list(tenant, query);
      expect(out.status, out.text).toBe(200);
      return out.body.repositories.map((r: { name: string }) => r.name);
    };
    expect(await names({ filters: 'MAPPED_REPOS' })).toEqual(['a', 'b']);
    expect(await names({ appFilter: 'REPOS_IN_ATTACK_SURFACE' })).toEqual(['a', 'b']);
    expect(await names({ repoFilter: 'REPOS_NOT_IN_ATTACK_SURFACE' })).toEqual(['c', 'd']);
    expect(await names({ filters: 'REPOS_WITH_APP_SCANS' })).toEqual(['a']);
    expect(await names({ filters: 'REPOS_WITH_NO_APP_SCANS' })).toEqual(['b', 'c', 'd']);
    expect(await names({ filters: 'REPOS_WITH_RECENT_SCANS' })).toEqual(['a']);
    expect(await names({ filters: 'MAPPED_REPOS,REPOS_WITH_NO_APP_SCANS' })).toEqual(['b']); // every filter applies
    expect(await names({ filters: 'HIDDEN_REPOS' })).toEqual([]);
    expect(await names({ filters: 'REPOS_WITH_GENERATED_OAS' })).toEqual([]);
    expect(await names({ recentCommitTimeframe: 'LAST_7_DAYS' })).toEqual(['c']);
    expect(await names({ recentCommitTimeframe: 'last_30_days' })).toEqual(['c']);
    expect(await names({ recentCommitTimeframe: 'OVER_30_DAYS' })).toEqual(['d']);
    expect(await names({ recentCommitTimeframe: 'LAST_COMMIT_DATE_UNSPECIFIED' })).toEqual(['a', 'b', 'c', 'd']);

    const refused: [Record<string, string>, string][] = [
      [{ repoFilter: 'WEB_APP_REPOS' }, 'repoFilter: WEB_APP_REPOS needs HawkScores'],
      [{ filters: 'MAPPED_REPOS,UNCOVERED_REPOS' }, 'filters: UNCOVERED_REPOS needs attack-surface detection'],
      [{ webAppFilter: 'REPOS_WITH_INSIGHTS' }, 'webAppFilter: REPOS_WITH_INSIGHTS needs code insights'],
      [
        { uncoveredRepoFilter: 'REPOS_WITH_NO_INSIGHTS' },
        'uncoveredRepoFilter: REPOS_WITH_NO_INSIGHTS needs code insights',
      ],
      [{ langIds: randomUUID() }, 'langIds: languages are registered by name'],
      [{ topicIds: randomUUID() }, 'topicIds: repository topics come from a source-control integration'],
      [{ integrationIds: randomUUID() }, 'integrationIds: no source-control integration is configured'],
      [{ sensitiveDataTags: 'PII' }, 'sensitiveDataTags: sensitive-data tags come from'],
      [{ filters: 'SOMETIMES' }, 'filters.0: must be one of ALL_REPOS'],
      [{ recentCommitTimeframe: 'LAST_YEAR' }, 'recentCommitTimeframe: must be one of'],
    ];
    for (const [query, message] of refused) {
      const out = await list(tenant, query);
      expect([out.status, out.body.message], JSON.stringify(query)).toEqual([400, expect.stringContaining(message)]);
    }
  });

  it('lists the API descriptions a repository registers in List OAS Assets, with its name and path, by the team rules', async () => {
    const tenant = await createTenant();
    const teamId = randomUUID();
    const [web, internal, bare] = [
      await seedApplication(tenant.orgId, { name: 'web' }),
      await seedApplication(tenant.orgId, { name: 'internal', teamId }),
      await seedApplication(tenant.orgId),
    ];
    await setMembership(
      tenant.orgId,
      tenant.userId,
      ['read:repository', 'write:repository', 'read:scan_config', 'write:scan_config', 'read:application'],
      [teamId],
    );
    for (const appId of [web, internal]) {
      const uploaded = await api('POST', `/api/v1/oas/${appId}/upload`, {
        token: tenant.token,
        rawBody: json30(),
        contentType: 'application/json',
      });
      expect(uploaded.status, uploaded.text).toBe(200);
    }
    const specs = [
      { oasId: web, sourceRootPath: 'services/web/openapi.json' },
      { oasId: internal.toUpperCase(), sourceRootPath: 'services/internal/openapi.json' },
    ];
    const svc = await register(tenant, { name: 'svc', openApiSpecs: specs });
    expect(svc.status, svc.text).toBe(200);
    expect(svc.body).toMatchObject({
      hasGeneratedOpenApiSpec: true,
      openApiSpecInfo: {
        repositoryId: svc.body.stackHawkRepoId,
        organizationId: tenant.orgId,
        generatedOasCount: 2,
        status: 'DONE',
      },
    });
    const repoId = svc.body.stackHawkRepoId;
    const other = (
      await register(tenant, { name: 'another', openApiSpecs: [{ oasId: web, sourceRootPath: 'openapi.json' }] })
    ).body.stackHawkRepoId;

    const fromSvc = [
      {
        oasId: internal,
        repositoryId: repoId,
        repositoryName: 'svc',
        sourceRootPath: 'services/internal/openapi.json',
      },
      { oasId: web, repositoryId: repoId, repositoryName: 'svc', sourceRootPath: 'services/web/openapi.json' },
    ].sort((x, y) => x.oasId.localeCompare(y.oasId));
    const fromOther = { oasId: web, repositoryId: other, repositoryName: 'another', sourceRootPath: 'openapi.json' };
    const byRepo = await api('GET', `/api/v1/oas/${tenant.orgId}/list`, {
      token: tenant.token,
      query: { repoIds: repoId },
    });
    expect(byRepo.body).toMatchObject({ oasFiles: fromSvc, totalCount: '2' });
    const all = await api('GET', `/api/v1/oas/${tenant.orgId}/list`, {
      token: tenant.token,
      query: { sortField: 'repoName' },
    });
    const uploaded = (oasId: string) => ({ oasId, repositoryId: '', repositoryName: '', sourceRootPath: '' });
    expect(all.body.oasFiles).toEqual([...[web, internal].sort().map(uploaded), fromOther, ...fromSvc]);
    expect(
      (await list(tenant, { filters: 'REPOS_WITH_GENERATED_OAS' })).body.repositories.map(
        (r: { name: string }) => r.name,
      ),
    ).toEqual(['another', 'svc']);

    // Outside the team that owns `internal`: neither its uploaded description nor the repository's entry for it.
    const outsider = await addUserTo(tenant.orgId, ['read:scan_config', 'read:repository', 'write:repository']);
    const seen = await api('GET', `/api/v1/oas/${tenant.orgId}/list`, {
      token: outsider.token,
      query: { repoIds: repoId },
    });
    expect(seen.body.oasFiles.map((a: { oasId: string }) => a.oasId)).toEqual([web]);
    const hiddenSpec = await register(tenant, { name: 'svc', openApiSpecs: [{ oasId: internal }] }, outsider.token);
    expect([hiddenSpec.status, hiddenSpec.body.message]).toEqual([
      400,
      expect.stringContaining(`openApiSpecs: no uploaded API description ${internal}`),
    ]);
    for (const oasId of [bare, randomUUID()]) {
      const refused = await register(tenant, { name: 'svc', openApiSpecs: [{ oasId }] });
      expect([refused.status, refused.body.message]).toEqual([
        400,
        expect.stringContaining(`openApiSpecs: no uploaded API description ${oasId}`),
      ]);
    }
    expect((await register(tenant, { name: 'svc', openApiSpecs: [{ oasId: 'x' }] })).body.message).toContain(
      'openApiSpecs.0.oasId: must be a UUID',
    );

    // An update without openApiSpecs keeps them; [] removes them.
    expect((await register(tenant, { name: 'svc', commitCount: 3 })).body.openApiSpecInfo.generatedOasCount).toBe(2);
    expect((await register(tenant, { name: 'svc', openApiSpecs: [] })).body).toMatchObject({
      hasGeneratedOpenApiSpec: false,
      openApiSpecInfo: { generatedOasCount: 0, status: 'NONE' },
    });
    expect(
      (await api('GET', `/api/v1/oas/${tenant.orgId}/list`, { token: tenant.token, query: { repoIds: repoId } })).body
        .totalCount,
    ).toBe('0');
  });

  it('answers 400 naming the field or the unknown applications, and changes nothing', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const otherApp = await createApp(other);
    const repoId = (await register(tenant, { name: 'r' })).body.stackHawkRepoId;
    const cases: [unknown, string][] = [
      [{}, 'body.name'],
      [{ name: 'bad;name' }, 'body.name'],
      [{ name: 'x', repoSource: 'SVN' }, 'body.repoSource'],
      [{ name: 'x', commitCount: -1 }, 'body.commitCount'],
      [{ name: 'x', remoteUrl: 'javascript:alert(1)' }, 'body.remoteUrl'],
      [{ name: 'x', languages: [{ percent: 5 }] }, 'body.languages.0.name'],
    ];
    for (const [body, field] of cases) {
      const response = await register(tenant, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.message).toContain(field);
    }
    const missing = randomUUID();
    const unknown = await mapApps(tenant, repoId, [otherApp, missing]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain(`${otherApp}, ${missing}`);
    expect(
      (
        await api('POST', `/api/v1/org/${tenant.orgId}/repo/${repoId}/applications`, {
          token: tenant.token,
          body: { appInfos: [{ id: 'nope' }] },
        })
      ).body.message,
    ).toContain('body.appInfos.0.id');
    expect((await mapApps(tenant, randomUUID(), [])).status).toBe(404);
    expect((await list(tenant, { repoFilter: 'WEB_APP_REPOS' })).body.message).toContain('repoFilter');
    expect((await list(tenant, { sortField: 'nope' })).body.message).toContain('sortField');
    expect(await auditTypes(tenant.orgId)).toEqual(['REPO_MODIFIED']);
  });

  it('applies permissions, team rules and organization isolation', async () => {
    const tenant = await createTenant();
    const teamId = randomUUID();
    const teamApp = await seedApplication(tenant.orgId, { teamId, name: 'team-app' });
    const openApp = await seedApplication(tenant.orgId, { name: 'open-app' });
    const repoId = (await register(tenant, { name: 'shared' })).body.stackHawkRepoId;
    await setMembership(
      tenant.orgId,
      tenant.userId,
      ['read:repository', 'write:repository', 'read:application'],
      [teamId],
    );
    expect((await mapApps(tenant, repoId, [teamApp, openApp])).status).toBe(200);

    const outsider = await addUserTo(tenant.orgId, ['read:repository', 'write:repository']);
    const seen = await list(tenant, {}, outsider.token);
    expect(seen.body.repositories[0].appInfos.map((a: { id: string }) => a.id)).toEqual([openApp]);
    expect((await mapApps(tenant, repoId, [teamApp], outsider.token)).body.message).toContain(teamApp); // not visible to it
    expect((await mapApps(tenant, repoId, [], outsider.token)).status).toBe(200); // removes only what it sees
    const kept = await list(tenant);
    expect(kept.body.repositories[0].appInfos.map((a: { id: string }) => a.id)).toEqual([teamApp]);

    const reader = await addUserTo(tenant.orgId, ['read:repository']);
    expect((await list(tenant, {}, reader.token)).status).toBe(200);
    expect((await register(tenant, { name: 'x' }, reader.token)).status).toBe(401);
    expect((await mapApps(tenant, repoId, [], reader.token)).status).toBe(401);
    const noRead = await addUserTo(tenant.orgId, ['read:application']);
    expect((await list(tenant, {}, noRead.token)).status).toBe(401);

    const other = await createTenant();
    expect((await list(tenant, {}, other.token)).status).toBe(401);
    expect((await register(tenant, { name: 'x' }, other.token)).status).toBe(401);
    expect((await mapApps(tenant, repoId, [], other.token)).status).toBe(401);
    expect(
      (await api('GET', `/api/v1/org/${other.orgId}/repo/${repoId}/sensitive/list`, { token: other.token })).status,
    ).toBe(404);
    expect((await mapApps(other, repoId, [])).status).toBe(404);
  });

  it('creates applications for repositories in one transaction, with write:application too', async () => {
    const tenant = await createTenant();
    const teamId = randomUUID();
    await setMembership(
      tenant.orgId,
      tenant.userId,
      ['read:repository', 'write:repository', 'write:application', 'read:application', 'read:team'],
      [],
    );
    const { joinTeams } = await import('./app-helpers.ts');
    await joinTeams(tenant.orgId, tenant.userId, [teamId]);
    const one = (await register(tenant, { name: 'svc-one' })).body.stackHawkRepoId;
    const two = (await register(tenant, { name: 'svc-two' })).body.stackHawkRepoId;
    const put = (body: unknown, token = tenant.token) =>
      api('PUT', `/api/v1/org/${tenant.orgId}/repos/apps`, { token, body });
    const created = await put({
      orgId: tenant.orgId,
      newRepositoryApps: [
        { repoId: one, appInfos: [{ name: 'one-web' }, { name: 'one-api' }] },
        { repoId: two, appInfos: [{ name: 'two-web' }] },
      ],
    });
    expect(created.status).toBe(200);
    expect(
      created.body.newRepositoryApps.map((e: { repoId: string; appInfos: { name: string; appStatus: string }[] }) => [
        e.repoId,
        e.appInfos.map((a) => `${a.name}:${a.appStatus}`),
      ]),
    ).toEqual([
      [one, ['one-web:ENV_INCOMPLETE', 'one-api:ENV_INCOMPLETE']],
      [two, ['two-web:ENV_INCOMPLETE']],
    ]);
    const appId = created.body.newRepositoryApps[0].appInfos[0].id;
    const app = await api('GET', `/api/v1/app/${appId}`, { token: tenant.token });
    expect(app.body).toMatchObject({ name: 'one-web', organizationId: tenant.orgId });
    const team = await api('GET', `/api/v1/org/${tenant.orgId}/team/${teamId}`, { token: tenant.token });
    expect(team.body.team.applications.map((a: { applicationId: string }) => a.applicationId)).toContain(appId); // created for the caller's team
    const repos = await list(tenant, { repoFilter: 'MAPPED_REPOS' });
    expect(
      repos.body.repositories.map((r: { name: string; appInfos: unknown[] }) => [r.name, r.appInfos.length]),
    ).toEqual([
      ['svc-one', 2],
      ['svc-two', 1],
    ]);
    const types = await auditTypes(tenant.orgId);
    expect(types.filter((t) => t === 'APPLICATION_ADDED')).toHaveLength(3);
    expect(types.filter((t) => t === 'APPLICATIONS_ADDED_FOR_REPOS')).toHaveLength(2);

    const before = types.length;
    const bad: [unknown, string][] = [
      [{ newRepositoryApps: [] }, 'body.newRepositoryApps'],
      [{ newRepositoryApps: [{ repoId: randomUUID(), appInfos: [{ name: 'x' }] }] }, 'no repository'],
      [{ newRepositoryApps: [{ repoId: one, appInfos: [{ name: '' }] }] }, 'body.newRepositoryApps.0.appInfos.0.name'],
      [
        {
          newRepositoryApps: [
            { repoId: one, appInfos: [{ name: 'a' }] },
            { repoId: one, appInfos: [{ name: 'b' }] },
          ],
        },
        'listed twice',
      ],
    ];
    for (const [body, message] of bad) {
      const response = await put(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.message).toContain(message);
    }
    const noAppWrite = await addUserTo(tenant.orgId, ['write:repository']);
    expect(
      (await put({ newRepositoryApps: [{ repoId: one, appInfos: [{ name: 'x' }] }] }, noAppWrite.token)).status,
    ).toBe(401);
    // The member holds write:application, but a key narrowed to write:repository does not: refused as well.
    const narrowedKey = await api('POST', '/api/v1/user/keys', {
      token: tenant.token,
      body: { name: 'repositories only', permissions: ['write:repository'] },
    });
    expect(narrowedKey.status, narrowedKey.text).toBe(200);
    const narrowed = await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': narrowedKey.body.apiKey } });
    expect(
      (await put({ newRepositoryApps: [{ repoId: one, appInfos: [{ name: 'x' }] }] }, narrowed.body.token)).status,
    ).toBe(401);
    const other = await createTenant();
    expect((await put({ newRepositoryApps: [{ repoId: one, appInfos: [{ name: 'x' }] }] }, other.token)).status).toBe(
      401,
    );
    expect(
      (
        await api('PUT', `/api/v1/org/${other.orgId}/repos/apps`, {
          token: other.token,
          body: { newRepositoryApps: [{ repoId: one, appInfos: [{ name: 'x' }] }] },
        })
      ).status,
    ).toBe(400);
    // Nothing was created: the only entry since is the narrowed key's own.
    const after = await auditTypes(tenant.orgId);
    const keysAdded = (all: string[]) => all.filter((t) => t === 'API_KEY_ADDED').length;
    expect([after.length, keysAdded(after)]).toEqual([before + 1, keysAdded(types) + 1]);
  });
});
