import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { newApp, newTeam } from './team-helpers.ts';
import { applicationDeletingMark, getApplication } from '../../shared/applications/application-repository.ts';
import { transactWrite } from '../../shared/db/transactions.ts';

// The V2 and deprecated application/environment lists (docs/API.md, Lists) over one seeded organization:
// 7 applications (one CLOUD) with 0-3 environments each: 8 environments of STANDARD applications, 1 of the CLOUD one.
let tenant: Tenant;
const apps: { applicationId: string; name: string }[] = [];

beforeAll(async () => {
  tenant = await createTenant();
  const specs: [string, string[], string?][] = [
    ['Banana', ['dev', 'prod']],
    ['apple', ['dev']],
    ['Cherry', ['qa', 'dev', 'prod']],
    ['apple', ['stage']], // same name: the id decides the order
    ['Empty', []],
    ['durian', ['Prod']],
    ['Cloudy', ['dev'], 'CLOUD'],
  ];
  for (const [name, envs, type] of specs) {
    const body = type ? { name, applicationType: type, cloudScanTargetURL: 'https://c.example.test' } : { name };
    const app = (await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body })).body;
    for (const env of envs)
      await api('POST', `/api/v1/app/${app.applicationId}/env`, { token: tenant.token, body: { env } });
    apps.push(app);
  }
});

const get = (path: string, query: Record<string, string | number | boolean | string[]> = {}) =>
  api('GET', path, { token: tenant.token, query });
const envsV2 = (query: Record<string, string | number | boolean | string[]> = {}) =>
  get(`/api/v2/org/${tenant.orgId}/envs`, query);
const appsV2 = (query: Record<string, string | number | boolean | string[]> = {}) =>
  get(`/api/v2/org/${tenant.orgId}/apps`, query);

async function walkV2(
  list: typeof envsV2,
  key: 'environments' | 'applications',
  id: string,
  query: Record<string, string | number>,
) {
  const ids: string[] = [];
  for (let page = 0; ; page++) {
    const out = await list({ ...query, pageSize: 2, pageToken: page });
    expect(out.status).toBe(200);
    ids.push(...out.body[key].map((item: Record<string, string>) => item[id]));
    if (!out.body.hasNext) return { ids, total: Number(out.body.totalCount) };
    expect(out.body.nextPageToken).toBe(String(page + 1));
  }
}

describe('List Environments V2', () => {
  it('returns the complete envelope, sorted by environment name by default, STANDARD applications only', async () => {
    const out = await envsV2({ pageSize: 3 });
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({
      orgId: tenant.orgId,
      totalCount: '8',
      hasNext: true,
      hasPrev: false,
      nextPageToken: '1',
      prevPageToken: '',
    });
    expect(out.body.currentPage).toMatchObject({
      number: 0,
      size: 3,
      sortOptions: { field: 'environmentName', direction: 'ASC' },
    });
    expect(out.body.nextPage).toMatchObject({ number: 1, size: 3 });
    expect(out.body.prevPage).toBeUndefined();
    expect(out.body.environments.map((e: { environmentName: string }) => e.environmentName)).toEqual([
      'dev',
      'dev',
      'dev',
    ]);
    const view = out.body.environments[0];
    expect(view).toMatchObject({
      applicationStatus: 'ACTIVE',
      applicationType: 'STANDARD',
      lastScanId: '',
      lastScanTimestamp: '0',
      lastScanStatus: 'UNKNOWN',
      lastScanTotalUntriaged: 0,
      repositoriesCount: 0,
      lastScanExternalAlertStats: [],
    });
    expect(view.applicationName).not.toBe('');
    expect(out.body.findingsHealth).toBeUndefined();
    const second = await envsV2({ pageSize: 3, page: 'p_1' });
    expect(second.body).toMatchObject({ hasPrev: true, prevPageToken: '0', currentPage: { number: 1 } });
    expect(second.body.environments).toEqual((await envsV2({ pageSize: 3, pageToken: 1 })).body.environments);
  });

  it('walking all pages returns every environment exactly once, for every sort field and direction', async () => {
    const all = await walkV2(envsV2, 'environments', 'environmentId', { pageSize: 1000 });
    expect(all.ids).toHaveLength(8);
    for (const sortField of [
      'environmentId',
      'environmentName',
      'applicationName',
      'scanDate',
      'scanDuration',
      'mappedRepositoryCount',
      'scanFindingsCounts',
      'thirtyDayCommitActivity',
      'flightpathLastUpdated',
    ]) {
      for (const sortDir of ['asc', 'DESC']) {
        const walked = await walkV2(envsV2, 'environments', 'environmentId', { sortField, sortDir });
        expect(walked.total, `${sortField} ${sortDir}`).toBe(8);
        expect([...walked.ids].sort(), `${sortField} ${sortDir}`).toEqual([...all.ids].sort());
        expect(new Set(walked.ids).size).toBe(8);
      }
    }
    const byApp = await envsV2({ sortField: 'applicationName', pageSize: 100 });
    const names = byApp.body.environments.map((e: { applicationName: string }) => e.applicationName.toLowerCase());
    expect(names).toEqual([...names].sort());
    const desc = await envsV2({ sortDir: 'desc', pageSize: 100 });
    expect(desc.body.environments.map((e: { environmentName: string }) => e.environmentName.toLowerCase())[0]).toBe(
      'stage',
    );
  });

  it('filters by applicationTypes, appIds, envIds, envs, query, lastScanStatus, teamIds and flight-path sessions, in both list forms', async () => {
    const count = async (query: Record<string, string | string[]>) =>
      Number((await envsV2({ ...query, pageSize: 1 })).body.totalCount);
    expect(await count({ applicationTypes: 'STANDARD,CLOUD' })).toBe(9);
    expect(await count({ applicationTypes: ['STANDARD', 'CLOUD'] })).toBe(9);
    expect(await count({ applicationTypes: 'CLOUD' })).toBe(1);
    expect(await count({ appIds: `${apps[0].applicationId},${apps[2].applicationId}` })).toBe(5);
    expect(await count({ appIds: [apps[0].applicationId, apps[2].applicationId] })).toBe(5);
    expect(await count({ envs: 'prod' })).toBe(3); // case-insensitive: prod, prod, Prod
    expect(await count({ envs: ['dev', 'qa'] })).toBe(4);
    expect(await count({ query: 'an' })).toBe(3); // Banana (2) + durian (1)
    expect(await count({ query: 'STAG' })).toBe(1);
    expect(await count({ lastScanStatus: 'LAST_SCAN_STATUS_UNSPECIFIED' })).toBe(8);
    expect(await count({ lastScanStatus: 'LAST_SCAN_STATUS_SUCCESS,LAST_SCAN_STATUS_ERRORED' })).toBe(0);
    expect(await count({ lastScanDate: 'LAST_7_DAYS' })).toBe(0);
    expect(await count({ teamIds: randomUUID() })).toBe(0);
    expect(await count({ hasFlightpathSession: 'true' })).toBe(0);
    expect(await count({ hasFlightpathSession: 'false' })).toBe(8);
    const one = (await envsV2({ pageSize: 1 })).body.environments[0];
    expect(await count({ envIds: one.environmentId })).toBe(1);
    const filtered = await envsV2({ envs: 'dev,qa', appIds: apps[2].applicationId });
    expect(filtered.body.currentPage.filters).toEqual([
      { name: 'appIds', value: apps[2].applicationId },
      { name: 'envs', value: '', multi: { values: ['dev', 'qa'] } },
      { name: 'applicationTypes', value: 'STANDARD' },
    ]);
  });

  it('adds health statistics on request', async () => {
    const out = await envsV2({ includeAppHealthStats: 'true' });
    expect(out.body.findingsHealth).toEqual({ high: 0, medium: 0, low: 0, total: 0 });
    expect(out.body.scanFrequencyHealth).toMatchObject({ totalApps: 5, appsNeverScanned: 5, failedScansCount: 0 });
  });

  it('refuses invalid parameters with 400 naming them', async () => {
    for (const [name, value] of [
      ['pageSize', '0'],
      ['pageSize', '1001'],
      ['pageSize', 'ten'],
      ['pageToken', '-2'],
      ['page', 'x_1'],
      ['appIds', 'not-a-uuid'],
      ['envIds', `${randomUUID()},nope`],
      ['teamIds', 'x'],
      ['query', 'a;b'],
      ['sortField', 'color'],
      ['sortDir', 'sideways'],
      ['lastScanDate', 'YESTERDAY'],
      ['applicationTypes', 'MAINFRAME'],
      ['lastScanStatus', 'DONE'],
      ['includeAppHealthStats', 'maybe'],
      ['hasFlightpathSession', 'perhaps'],
    ]) {
      const out = await envsV2({ [name]: value });
      expect(out.status, `${name}=${value}`).toBe(400);
      expect(out.body.message, `${name}=${value}`).toContain(name);
    }
  });
});

describe('List Applications V2', () => {
  it('sorts by name (case-insensitively, then id), pages stably, filters and counts', async () => {
    const first = await appsV2({ pageSize: 2 });
    expect(first.body).toMatchObject({
      orgId: tenant.orgId,
      totalCount: '6',
      hasNext: true,
      currentPage: { sortOptions: { field: 'applicationName', direction: 'ASC' } },
    });
    const appleIds = apps
      .filter((a) => a.name === 'apple')
      .map((a) => a.applicationId)
      .sort();
    expect(first.body.applications.map((a: { applicationId: string }) => a.applicationId)).toEqual(appleIds);
    for (const sortField of [
      'applicationId',
      'applicationName',
      'applicationStatus',
      'mappedRepositoryCount',
      'thirtyDayCommitActivity',
    ]) {
      for (const sortDir of ['ASC', 'desc']) {
        const walked = await walkV2(appsV2, 'applications', 'applicationId', { sortField, sortDir });
        expect(walked.total).toBe(6);
        expect(new Set(walked.ids).size, `${sortField} ${sortDir}`).toBe(6);
      }
    }
    const count = async (query: Record<string, string>) =>
      Number((await appsV2({ ...query, pageSize: 1 })).body.totalCount);
    expect(await count({ applicationTypes: 'STANDARD,CLOUD' })).toBe(7);
    expect(await count({ applicationStatus: 'ENV_INCOMPLETE' })).toBe(1);
    expect(await count({ applicationStatus: 'ACTIVE,ENV_INCOMPLETE' })).toBe(6);
    expect(await count({ query: 'APP' })).toBe(2);
    expect(await count({ appIds: `${apps[0].applicationId},${apps[6].applicationId}` })).toBe(1);
    const byStatus = await appsV2({ sortField: 'applicationStatus', sortDir: 'DESC', pageSize: 1 });
    expect(byStatus.body.applications[0].applicationStatus).toBe('ENV_INCOMPLETE');
    for (const [name, value] of [
      ['sortField', 'environmentName'],
      ['applicationStatus', 'DONE'],
      ['pageSize', '5000'],
      ['appIds', 'x'],
    ]) {
      const out = await appsV2({ [name]: value });
      expect(out.status).toBe(400);
      expect(out.body.message).toContain(name);
    }
  });
});

describe('deprecated lists', () => {
  it('List Applications: one entry per application-environment, paged until nextPageToken is empty', async () => {
    const entries: { name: string; env: string }[] = [];
    let token = '0';
    let total = 0;
    for (let guard = 0; token !== '' && guard < 20; guard++) {
      const out = await get(`/api/v1/app/${tenant.orgId}/list`, { pageSize: 3, pageToken: token });
      expect(out.status).toBe(200);
      entries.push(...out.body.applications);
      token = out.body.nextPageToken;
      total = Number(out.body.totalCount);
    }
    expect(token).toBe('');
    expect(total).toBe(10); // 9 environments + the application without one
    expect(entries).toHaveLength(10); // and then page 11, past the end, empty with an empty nextPageToken
    expect(
      entries
        .slice(0, 2)
        .map((e) => `${e.name}/${e.env}`)
        .sort(),
    ).toEqual(['apple/dev', 'apple/stage']);
    const ignore = await get(`/api/v1/app/${tenant.orgId}/list`, {
      ignoreEnvs: 'true',
      pageSize: 100,
      sortField: 'name',
      sortDir: 'DESC',
    });
    expect(ignore.body.applications.map((a: { name: string; env: string }) => a.name)).toEqual([
      'Empty',
      'durian',
      'Cloudy',
      'Cherry',
      'Banana',
      'apple',
      'apple',
    ]);
    expect(ignore.body.applications.every((a: { env: string }) => a.env === '')).toBe(true);
    expect(ignore.body.nextPageToken).toBe('8'); // past the end: totalCount + 1
    const prod = await get(`/api/v1/app/${tenant.orgId}/list`, { envs: 'prod', pageSize: 100 });
    expect(prod.body.applications.map((a: { env: string }) => a.env.toLowerCase())).toEqual(['prod', 'prod', 'prod']);
    for (const [name, value] of [
      ['sortField', 'date'],
      ['sortDir', 'up'],
      ['pageToken', '-2'],
      ['ignoreEnvs', 'yes'],
      ['appIds', 'x'],
    ]) {
      const out = await get(`/api/v1/app/${tenant.orgId}/list`, { [name]: value });
      expect(out.status).toBe(400);
      expect(out.body.message).toContain(name);
    }
  });

  it("List Environments: the application's environments by name or id, with envs filter and paging", async () => {
    const cherry = apps[2].applicationId;
    const byName = await get(`/api/v1/app/${cherry}/env/list`);
    expect(byName.body).toMatchObject({ totalCount: '3', nextPageToken: '4' });
    expect(byName.body.environments.map((e: { environmentName: string }) => e.environmentName)).toEqual([
      'dev',
      'prod',
      'qa',
    ]);
    const paged = await get(`/api/v1/app/${cherry}/env/list`, { pageSize: 2, sortDir: 'DESC' });
    expect(paged.body.environments.map((e: { environmentName: string }) => e.environmentName)).toEqual(['qa', 'prod']);
    expect(paged.body.nextPageToken).toBe('1');
    const byId = await get(`/api/v1/app/${cherry}/env/list`, { sortField: 'id' });
    const ids = byId.body.environments.map((e: { environmentId: string }) => e.environmentId);
    expect(ids).toEqual([...ids].sort());
    expect((await get(`/api/v1/app/${cherry}/env/list`, { envs: 'QA,dev' })).body.totalCount).toBe('2');
    expect((await get(`/api/v1/app/${cherry}/env/list`, { pageSize: '0' })).status).toBe(400);
  });
});

// ---- The index-served lists (docs/DATA-MODEL.md, Reads): orders, team rules, renames, deletes.

const ENV_SORTS = [
  'environmentId',
  'environmentName',
  'applicationName',
  'scanDate',
  'scanDuration',
  'mappedRepositoryCount',
  'scanFindingsCounts',
  'thirtyDayCommitActivity',
  'flightpathLastUpdated',
];
const APP_SORTS = [
  'applicationId',
  'applicationName',
  'applicationStatus',
  'mappedRepositoryCount',
  'thirtyDayCommitActivity',
];
type EnvView = { environmentId: string; environmentName: string; applicationId: string; applicationName: string };

/** Every sort both ways, walked in pages of 2 and read as one page: the same order, each item once. */
async function everyOrder(token: string, orgId: string, query: Record<string, string> = {}) {
  const orders = new Map<string, string[]>();
  for (const sortField of ENV_SORTS) {
    for (const sortDir of ['ASC', 'DESC']) {
      const list = (q: Record<string, string | number | boolean | string[]> = {}) =>
        api('GET', `/api/v2/org/${orgId}/envs`, { token, query: { ...query, ...q } });
      const walked = await walkV2(list, 'environments', 'environmentId', { sortField, sortDir });
      const whole = await list({ sortField, sortDir, pageSize: 1000 });
      expect(walked.ids, `${sortField} ${sortDir}`).toEqual(
        whole.body.environments.map((e: EnvView) => e.environmentId),
      );
      expect(new Set(walked.ids).size, `${sortField} ${sortDir}`).toBe(walked.ids.length);
      expect(walked.total, `${sortField} ${sortDir}`).toBe(walked.ids.length);
      orders.set(`${sortField} ${sortDir}`, walked.ids);
      if (sortField === 'applicationName' || sortField === 'environmentName' || sortField === 'environmentId') {
        const views: EnvView[] = whole.body.environments;
        const key = (e: EnvView) =>
          sortField === 'applicationName'
            ? `${e.applicationName.toLowerCase()}#${e.applicationId}#${e.environmentId}`
            : sortField === 'environmentName'
              ? `${e.environmentName.toLowerCase()}#${e.environmentId}`
              : e.environmentId;
        const expected = views.map(key).sort();
        if (sortDir === 'DESC') expected.reverse();
        expect(views.map(key), `${sortField} ${sortDir}`).toEqual(expected);
      }
    }
  }
  return orders;
}

describe('index-served lists', () => {
  it('keep the team rules under every sort: a member of no team sees the unowned applications only, each environment once', async () => {
    const org = await createTenant();
    const outsider = await addUserTo(org.orgId);
    const owned = [
      await newApp(org.orgId, org.token, 'Owned One', 'dev'),
      await newApp(org.orgId, org.token, 'owned two', 'prod'),
    ];
    await api('POST', `/api/v1/app/${owned[1]}/env`, { token: org.token, body: { env: 'qa' } });
    const free = [
      await newApp(org.orgId, org.token, 'Free', 'dev'),
      await newApp(org.orgId, org.token, 'zeta', 'stage'),
    ];
    await api('POST', `/api/v1/app/${free[0]}/env`, { token: org.token, body: { env: 'prod' } });
    const team = await newTeam(org.orgId, org.token, { name: 'owners', userIds: [org.userId], applicationIds: owned });

    const all = await everyOrder(org.token, org.orgId);
    const seen = await everyOrder(outsider.token, org.orgId);
    const byApp = async (token: string, appIds: string[]) => {
      const out = await api('GET', `/api/v2/org/${org.orgId}/envs`, { token, query: { appIds, pageSize: 100 } });
      return out.body.environments.map((e: EnvView) => e.environmentId).sort();
    };
    const freeEnvs = await byApp(org.token, free);
    expect(freeEnvs).toHaveLength(3);
    // Another organization's applications select nothing, not even a count.
    const other = await api('GET', `/api/v2/org/${tenant.orgId}/envs`, {
      token: tenant.token,
      query: { appIds: free, pageSize: 1 },
    });
    expect(other.body).toMatchObject({ totalCount: '0', environments: [] });
    for (const [order, ids] of all) expect(ids, order).toHaveLength(6);
    for (const [order, ids] of seen) expect([...ids].sort(), order).toEqual(freeEnvs);
    // The teamIds filter selects the team's applications, for its members only.
    for (const sortField of ENV_SORTS) {
      for (const sortDir of ['ASC', 'DESC']) {
        const page = (token: string) =>
          api('GET', `/api/v2/org/${org.orgId}/envs`, {
            token,
            query: { teamIds: team.id, sortField, sortDir, pageSize: 100 },
          });
        expect((await page(org.token)).body.environments, `${sortField} ${sortDir}`).toHaveLength(3);
        expect((await page(outsider.token)).body, `${sortField} ${sortDir}`).toMatchObject({
          environments: [],
          totalCount: '0',
        });
      }
    }

    for (const sortField of APP_SORTS) {
      for (const sortDir of ['ASC', 'DESC']) {
        const list =
          (token: string) =>
          (q: Record<string, string | number | boolean | string[]> = {}) =>
            api('GET', `/api/v2/org/${org.orgId}/apps`, { token, query: q });
        const mine = await walkV2(list(org.token), 'applications', 'applicationId', { sortField, sortDir });
        const theirs = await walkV2(list(outsider.token), 'applications', 'applicationId', { sortField, sortDir });
        expect([...mine.ids].sort(), `${sortField} ${sortDir}`).toEqual([...owned, ...free].sort());
        expect([...theirs.ids].sort(), `${sortField} ${sortDir}`).toEqual([...free].sort());
        expect(theirs.total).toBe(2);
      }
    }
    const v1 = async (token: string) =>
      (await api('GET', `/api/v1/app/${org.orgId}/list`, { token, query: { pageSize: 100 } })).body;
    expect((await v1(org.token)).totalCount).toBe('6');
    expect(
      (await v1(outsider.token)).applications.map((a: { applicationId: string }) => a.applicationId).sort(),
    ).toEqual([free[0], free[0], free[1]].sort());
  }, 180_000);

  it('renaming an application moves its environments in the applicationName order at once, also while environments are created', async () => {
    const org = await createTenant();
    const moved = await newApp(org.orgId, org.token, 'middle', 'dev');
    for (const name of ['alpha', 'omega']) await newApp(org.orgId, org.token, name, 'dev');
    const names = async (sortDir = 'ASC') =>
      (
        await api('GET', `/api/v2/org/${org.orgId}/envs`, {
          token: org.token,
          query: { sortField: 'applicationName', sortDir, pageSize: 100 },
        })
      ).body.environments.map((e: EnvView) => e.applicationName);
    expect(await names()).toEqual(['alpha', 'middle', 'omega']);

    // The rename races five environment creations in the same application.
    const results = await Promise.all([
      api('POST', `/api/v1/app/${moved}`, { token: org.token, body: { name: 'Zulu' } }),
      ...['e1', 'e2', 'e3', 'e4', 'e5'].map((env) =>
        api('POST', `/api/v1/app/${moved}/env`, { token: org.token, body: { env } }),
      ),
    ]);
    for (const out of results) expect(out.status, out.text).toBe(200);
    expect(await names()).toEqual(['alpha', 'omega', ...Array(6).fill('Zulu')]);
    expect(await names('DESC')).toEqual([...Array(6).fill('Zulu'), 'omega', 'alpha']);
    const orders = await everyOrder(org.token, org.orgId);
    for (const [order, ids] of orders) expect(ids, order).toHaveLength(8);
    // Deep pages of one application's environments: page 3 of size 2 starts at its 5th environment (after alpha, omega).
    const deep = await api('GET', `/api/v2/org/${org.orgId}/envs`, {
      token: org.token,
      query: { sortField: 'applicationName', pageSize: 2, pageToken: 2 },
    });
    expect(deep.body.environments.map((e: EnvView) => e.applicationName)).toEqual(['Zulu', 'Zulu']);
    expect(deep.body).toMatchObject({ totalCount: '8', hasNext: true });
    const audit = await api('GET', `/api/v1/org/${org.orgId}/audit`, {
      token: org.token,
      query: { types: 'APPLICATION_MODIFIED' },
    });
    expect(audit.body.auditRecords).toHaveLength(1);
    const apps = await api('GET', `/api/v2/org/${org.orgId}/apps`, { token: org.token, query: { pageSize: 10 } });
    expect(apps.body.applications.map((a: { name: string }) => a.name)).toEqual(['alpha', 'omega', 'Zulu']);
  }, 180_000);

  it('leave out the environments of an application whose delete has started, under every sort', async () => {
    const org = await createTenant();
    const kept = await newApp(org.orgId, org.token, 'kept', 'dev');
    const doomed = await newApp(org.orgId, org.token, 'doomed', 'dev');
    await api('POST', `/api/v1/app/${doomed}/env`, { token: org.token, body: { env: 'prod' } });
    // The first step of a delete only (an interrupted cascade): the environments' index entries are still there.
    const app = await getApplication(doomed);
    await transactWrite(applicationDeletingMark(app!));
    for (const [order, ids] of await everyOrder(org.token, org.orgId)) expect(ids, order).toHaveLength(1);
    const v1 = await api('GET', `/api/v1/app/${org.orgId}/list`, { token: org.token, query: { pageSize: 100 } });
    expect(v1.body.applications.map((a: { applicationId: string }) => a.applicationId)).toEqual([kept]);
    expect((await api('GET', `/api/v2/org/${org.orgId}/apps`, { token: org.token })).body.totalCount).toBe('1');
    // DELETE resumes the cascade.
    expect((await api('DELETE', `/api/v1/app/${doomed}`, { token: org.token })).status).toBe(200);
  }, 180_000);
});
