import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from 'aws-lambda';
import { lambdaContext, matchRoute } from '../../scripts/local/server.ts';
import { apiGatewayEvent } from '../../scripts/local/api-gateway-event.ts';
import { scopeObservers, type RequestScope } from '../../shared/context/request-scope.ts';
import { config } from '../../shared/config.ts';
import { addMember, removeMember } from '../../shared/identity/admin.ts';
import type { LambdaEvent, LambdaResult } from '../../shared/http/types.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { handlerFile } from '../../shared/http/route.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { getItem } from '../../shared/db/query.ts';
import { operation } from '../../shared/http/operation.ts';
import {
  getOrganizationOverviewRoute,
  listApplicationsRoute,
  listAppsV2Route,
  listEnvironmentsRoute,
  listEnvsV2Route,
} from '../../shared/routes.ts';
import { organizationOverview } from '../../shared/overview/overview.ts';
import { listEnvironmentsV2 } from '../../shared/applications/environment-list.ts';
import { listApplicationsV1, listApplicationsV2 } from '../../shared/applications/applications.ts';
import { listEnvironmentsV1 } from '../../shared/scans/environment-list-v1.ts';
import { randomUUID } from 'node:crypto';
import { seedEnvironments as seedInBulk } from '../../scripts/bench/seed-environments.ts';

// DynamoDB round trips per request (docs/COMPATIBILITY.md, Compatibility choices): the reads a request needs before its
// authorization decision go in one round trip beside the rate-limit update (shared/http/prefetch.ts). The handlers run
// in this process, as the local server runs them, so the request scope's counts can be observed; the answers are
// checked as well, since reading early must not change what a request answers or refuses.
type Handler = (event: LambdaEvent, context: Context) => Promise<LambdaResult>;

const scopes: RequestScope[] = [];
scopeObservers.push((scope) => scopes.push(scope));
afterEach(() => void (scopes.length = 0));

async function call(
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: object,
  own?: Handler, // instead of the route's function
) {
  const route = matchRoute(method, target.split('?')[0])!;
  const handler = own ?? ((await import(`../../functions/${handlerFile(route)}.ts`)) as { handler: Handler }).handler;
  const request = {
    method,
    target,
    headers: Object.entries(headers),
    body: Buffer.from(body ? JSON.stringify(body) : ''),
    sourceIp: '198.51.100.17',
  };
  const event = apiGatewayEvent(
    body ? { ...request, headers: [...request.headers, ['content-type', 'application/json']] } : request,
    route,
  );
  scopes.length = 0;
  const result = await handler(event, lambdaContext(route));
  const scope = scopes.at(-1)!;
  return {
    status: result.statusCode,
    body: result.body ? JSON.parse(result.body) : undefined,
    roundTrips: scope.dynamodbRoundTrips,
    calls: scope.dynamodbCalls,
    readUnits: scope.readUnits,
  };
}

const bearer = (tenant: { token: string }) => ({ authorization: `Bearer ${tenant.token}` });

/**
 * The list operations without their prefetch (the name samples, the scope, the environments read in the first round
 * trip): their answers and read units must not change, only when the reads leave.
 */
const plainHandlers = () => ({
  envs: operation(listEnvsV2Route, ({ caller, params, query }) =>
    listEnvironmentsV2(caller, params.orgId, query),
  ) as Handler,
  apps: operation(listAppsV2Route, ({ caller, params, query }) =>
    listApplicationsV2(caller, params.orgId, query),
  ) as Handler,
  v1Apps: operation(listApplicationsRoute, ({ caller, params, query }) =>
    listApplicationsV1(caller, params.orgId, query),
  ) as Handler,
  v1Envs: operation(listEnvironmentsRoute, ({ caller, params, query }) =>
    listEnvironmentsV1(caller, params.appId, query),
  ) as Handler,
});

/**
 * `target` read by `who` on a process that knows the user's organization (a first read teaches it), then by `handler`
 * without prefetch: the same status 200, answer and read units.
 */
async function asWithoutPrefetch(target: string, who: { token: string }, handler: Handler) {
  await call('GET', target, bearer(who)); // this process learns the user's organization
  const prefetched = await call('GET', target, bearer(who));
  const unprefetched = await call('GET', target, bearer(who), undefined, handler);
  expect(prefetched.status, target).toBe(200);
  expect(prefetched.body, target).toEqual(unprefetched.body);
  expect(prefetched.readUnits, target).toBe(unprefetched.readUnits);
  return { prefetched, unprefetched };
}

describe('DynamoDB round trips per request', () => {
  let tenant: Tenant;
  let appId: string;
  beforeAll(async () => {
    tenant = await createTenant();
    const created = await call('POST', `/api/v1/org/${tenant.orgId}/app`, bearer(tenant), { name: 'round-trips' });
    expect(created.status).toBe(200);
    appId = created.body.applicationId;
  });

  it('reads a single item in one round trip: the item, the membership and the organization beside the rate-limit update', async () => {
    await call('GET', `/api/v1/app/${appId}`, bearer(tenant)); // this process learns the user's organization
    const read = await call('GET', `/api/v1/app/${appId}`, bearer(tenant));
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ applicationId: appId, organizationId: tenant.orgId, name: 'round-trips' });
    expect(read.roundTrips).toBe(1);
    expect(read.calls).toBe(2); // UpdateItem (rate limit) and BatchGetItem (application, organization, membership)
  });

  it('answers GET /api/v1/user and login in one round trip each', async () => {
    await call('GET', '/api/v1/user', bearer(tenant));
    const user = await call('GET', '/api/v1/user', bearer(tenant));
    expect(user.status).toBe(200);
    expect(
      user.body.user.external.organizations.map((o: { organization: { id: string } }) => o.organization.id),
    ).toEqual([tenant.orgId]);
    expect(user.roundTrips).toBe(1);
    // UpdateItem (rate limit) and one BatchGetItem (user, organization, membership: the user item names its
    // organizations, so no gsi1 query beside them).
    expect(user.calls).toBe(2);

    await call('GET', '/api/v1/auth/login', { 'x-apikey': tenant.apiKey });
    const login = await call('GET', '/api/v1/auth/login', { 'x-apikey': tenant.apiKey });
    expect(login.status).toBe(200);
    expect(login.body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(login.roundTrips).toBe(1);

    const refreshed = await call('GET', '/api/v1/auth/refresh-token', bearer(tenant));
    expect(refreshed.status).toBe(200);
    expect(refreshed.roundTrips).toBe(1);
  });

  it('authorizes an organization-addressed operation in the first round trip', async () => {
    const list = await call('GET', `/api/v1/app/${tenant.orgId}/list`, bearer(tenant));
    expect(list.status).toBe(200);
    expect(list.body.applications.map((a: { applicationId: string }) => a.applicationId)).toContain(appId);
    // Round trip 1: rate limit and authorization; then the list itself.
    expect(list.roundTrips).toBeLessThan(list.calls);
  });

  it('answers a V2 application list page in at most 3 round trips: its scope read beside the authorization', async () => {
    const more = [];
    for (const name of ['round-trips-b', 'round-trips-c'])
      more.push((await call('POST', `/api/v1/org/${tenant.orgId}/app`, bearer(tenant), { name })).body.applicationId);
    const apps = `/api/v2/org/${tenant.orgId}/apps`;
    // pageSize 1 of 3 applications: the name index walked (round trip 2), the page's application read whole (3).
    const first = await call('GET', `${apps}?pageSize=1`, bearer(tenant));
    expect(first.status).toBe(200);
    expect(first.body.applications.map((a: { name: string }) => a.name)).toEqual(['round-trips']);
    expect(first.body.totalCount).toBe('3');
    expect(first.roundTrips).toBe(3);
    const last = await call('GET', `${apps}?pageSize=1&pageToken=2&sortDir=DESC`, bearer(tenant));
    expect(last.body.applications.map((a: { name: string }) => a.name)).toEqual(['round-trips']);
    expect(last.roundTrips).toBe(3);
    // A repository sort: the repositories read in the first round trip too, the mapped applications beside the walk.
    const byRepos = await call('GET', `${apps}?pageSize=1&sortField=mappedRepositoryCount`, bearer(tenant));
    expect(byRepos.status).toBe(200);
    expect(byRepos.body.totalCount).toBe('3');
    expect(byRepos.roundTrips).toBe(3);
    // Named applications: no scope to read, the applications by key.
    const named = await call('GET', `${apps}?appIds=${more[1]}`, bearer(tenant));
    expect(named.body.applications.map((a: { applicationId: string }) => a.applicationId)).toEqual([more[1]]);
    expect(named.roundTrips).toBe(2);
  });

  it('answers a V2 environment list page in at most 3 round trips: its scope and repositories beside the authorization', async () => {
    const own = await createTenant();
    const names = ['envs-a', 'envs-b'];
    for (const name of names)
      expect((await call('POST', `/api/v1/org/${own.orgId}/app`, bearer(own), { name, env: name })).status).toBe(200);
    const envs = `/api/v2/org/${own.orgId}/envs`;
    // Round trip 1: the rate limit, the authorization, the scope and the repositories; 2: the walk; 3: the page's
    // environments and applications with the applications their repositories map.
    for (const query of ['pageSize=1', 'pageSize=1&pageToken=1&sortDir=DESC', 'pageSize=1&sortField=scanDate']) {
      const page = await call('GET', `${envs}?${query}`, bearer(own));
      expect(page.status).toBe(200);
      expect(page.body.environments).toHaveLength(1);
      expect(page.body.totalCount).toBe('2');
      expect(page.roundTrips).toBeLessThanOrEqual(3);
    }
    // The default order is by environment name (each named after its application here: one order, no tie).
    const first = await call('GET', `${envs}?pageSize=1`, bearer(own));
    expect(first.body.environments[0].applicationName).toBe('envs-a');
  });

  it('answers a V2 environment list from the walk prefetched in the first round trip as without it, for the same read units', async () => {
    const own = await createTenant();
    const post = (path: string, body: object) => call('POST', path, bearer(own), body);
    for (const [name, envs] of [
      ['pf-b', ['dev', 'prod']],
      ['pf-a', ['qa']],
      ['pf-d', ['dev', 'stage', 'prod']],
      ['pf-c', ['x']],
    ] as const) {
      const app = await post(`/api/v1/org/${own.orgId}/app`, { name, env: envs[0] });
      for (const env of envs.slice(1))
        expect((await post(`/api/v1/app/${app.body.applicationId}/env`, { env })).status).toBe(200);
    }
    // A CLOUD application's environment: the default applicationTypes leave it out, a walk filters it.
    const cloud = {
      name: 'pf-cloud',
      env: 'aaa',
      applicationType: 'CLOUD',
      cloudScanTargetURL: 'https://c.example.test',
    };
    expect((await post(`/api/v1/org/${own.orgId}/app`, cloud)).status).toBe(200);
    // The same pipeline without the list's own prefetch: the walk's first call read when the list asks for it.
    const unprefetched = operation(listEnvsV2Route, ({ caller, params, query }) =>
      listEnvironmentsV2(caller, params.orgId, query),
    ) as Handler;
    const envs = `/api/v2/org/${own.orgId}/envs`;
    const sorts = ['environmentName', 'environmentId', 'scanDate', 'scanDuration', 'scanFindingsCounts'];
    const queries = [
      'pageSize=1',
      'pageSize=2&pageToken=2',
      'pageSize=3&page=p_1&sortDir=DESC',
      'pageSize=1000',
      'pageSize=4&pageToken=9',
      'applicationTypes=CLOUD',
      'applicationTypes=STANDARD,CLOUD&pageSize=4',
      `teamIds=${randomUUID()}`,
      ...[...sorts, 'applicationName', 'mappedRepositoryCount', 'flightpathLastUpdated'].flatMap((sortField) =>
        ['ASC', 'DESC'].map((dir) => `pageSize=3&sortField=${sortField}&sortDir=${dir}`),
      ),
    ];
    for (const query of queries) {
      const prefetched = await call('GET', `${envs}?${query}`, bearer(own));
      const plain = await call('GET', `${envs}?${query}`, bearer(own), undefined, unprefetched);
      expect(prefetched.status, query).toBe(200);
      expect(prefetched.body, query).toEqual(plain.body);
      expect(prefetched.readUnits, query).toBe(plain.readUnits);
      expect(prefetched.roundTrips, query).toBeLessThanOrEqual(plain.roundTrips!);
    }
    // A first page that no filter thins (both types): the walk beside the authorization, the page's applications after.
    for (const sortField of sorts) {
      const both = `applicationTypes=STANDARD,CLOUD&pageSize=2&sortField=${sortField}`;
      const page = await call('GET', `${envs}?${both}`, bearer(own));
      expect(page.body.environments, sortField).toHaveLength(2);
      expect(page.roundTrips, sortField).toBeLessThanOrEqual(2);
    }
    // A repository sort's descending walk, prefetched too: the page follows (no repository maps an application).
    const byRepos = await call(
      'GET',
      `${envs}?applicationTypes=STANDARD,CLOUD&pageSize=2&sortField=mappedRepositoryCount&sortDir=DESC`,
      bearer(own),
    );
    expect(byRepos.body.environments).toHaveLength(2);
    expect(byRepos.roundTrips).toBeLessThanOrEqual(2);
    // By application name: the page's applications read beside their environments.
    const byApp = await call('GET', `${envs}?pageSize=2&sortField=applicationName`, bearer(own));
    expect(byApp.body.environments.map((e: { applicationName: string }) => e.applicationName)).toEqual([
      'pf-a',
      'pf-b',
    ]);
    expect(byApp.roundTrips).toBeLessThanOrEqual(3);
    // Refused as without the prefetch, and nothing of what it read is answered.
    const stranger = await createTenant();
    const refused = await call('GET', `${envs}?pageSize=5`, bearer(stranger));
    const plainRefused = await call('GET', `${envs}?pageSize=5`, bearer(stranger), undefined, unprefetched);
    expect(refused.status).toBe(plainRefused.status);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.body).toEqual(plainRefused.body);
    expect(JSON.stringify(refused.body)).not.toContain('pf-');
  });

  it('answers query-filtered and deprecated list pages from reads issued together, as without them, for the same read units', async () => {
    const own = await createTenant();
    const post = (path: string, body: object) => call('POST', path, bearer(own), body);
    const appIds: string[] = [];
    for (const [name, envs] of [
      ['orders-svc', ['dev', 'prod']],
      ['billing-svc', ['stage']],
      ['search-api', ['dev', 'svc-canary']],
      ['empty-svc', []],
    ] as const) {
      const app = await post(`/api/v1/org/${own.orgId}/app`, { name, ...(envs[0] ? { env: envs[0] } : {}) });
      appIds.push(app.body.applicationId);
      for (const env of envs.slice(1))
        expect((await post(`/api/v1/app/${app.body.applicationId}/env`, { env })).status).toBe(200);
    }
    // An application of another type matching `query`: out of the default scope, which the plans check by application.
    const cloud = {
      name: 'cloud-svc',
      env: 'aaa',
      applicationType: 'CLOUD',
      cloudScanTargetURL: 'https://c.example.test',
    };
    expect((await post(`/api/v1/org/${own.orgId}/app`, cloud)).status).toBe(200);
    const plain = plainHandlers();
    // [target, its plain handler, the most round trips it may take]
    const cases: [string, Handler, number][] = [
      // The names (first round trip), the environments of the applications named like it beside their scope check
      // (the other type's ids), the page.
      [`/api/v2/org/${own.orgId}/envs?query=svc&pageSize=2`, plain.envs, 3],
      [`/api/v2/org/${own.orgId}/envs?query=svc&pageSize=2&sortField=scanDate&sortDir=DESC`, plain.envs, 3],
      [`/api/v2/org/${own.orgId}/envs?query=canary`, plain.envs, 3],
      [`/api/v2/org/${own.orgId}/envs?query=svc&lastScanStatus=LAST_SCAN_STATUS_UNSPECIFIED`, plain.envs, 3],
      // The health aggregates beside the walk prefetched in the first round trip, then the page.
      [`/api/v2/org/${own.orgId}/envs?includeAppHealthStats=true&pageSize=2`, plain.envs, 3],
      [`/api/v2/org/${own.orgId}/envs?includeAppHealthStats=true&sortField=scanDate&sortDir=DESC`, plain.envs, 3],
      [`/api/v2/org/${own.orgId}/apps?query=svc&pageSize=2`, plain.apps, 2],
      [`/api/v2/org/${own.orgId}/apps?query=svc&sortField=applicationId&sortDir=DESC`, plain.apps, 2],
      [`/api/v1/app/${own.orgId}/list?pageSize=2`, plain.v1Apps, 3],
      [`/api/v1/app/${own.orgId}/list?pageSize=2&pageToken=1&sortField=id`, plain.v1Apps, 3],
      [`/api/v1/app/${own.orgId}/list?pageSize=2&pageToken=9`, plain.v1Apps, 3], // past the end
      [`/api/v1/app/${own.orgId}/list?envs=dev`, plain.v1Apps, 3],
      [`/api/v1/app/${appIds[0]}/env/list`, plain.v1Envs, 3],
    ];
    for (const [target, handler, most] of cases) {
      const { prefetched, unprefetched } = await asWithoutPrefetch(target, own, handler);
      expect(prefetched.roundTrips, target).toBeLessThanOrEqual(Math.min(most, unprefetched.roundTrips!));
    }
    const names = (body: { environments: { environmentName: string; applicationName: string }[] }) =>
      body.environments.map((e) => `${e.applicationName}/${e.environmentName}`);
    const page = await call('GET', `/api/v2/org/${own.orgId}/envs?query=svc&pageSize=10`, bearer(own));
    expect(names(page.body)).toEqual([
      'orders-svc/dev',
      'orders-svc/prod',
      'billing-svc/stage',
      'search-api/svc-canary',
    ]);
    // Refused before anything read early is used: as without the prefetch, and nothing of the organization's shown.
    const stranger = await createTenant();
    for (const [target, handler] of cases) {
      const refused = await call('GET', target, bearer(stranger));
      const plainRefused = await call('GET', target, bearer(stranger), undefined, handler);
      expect(refused.status, target).toBeGreaterThanOrEqual(400);
      expect(refused.status, target).toBe(plainRefused.status);
      expect(refused.body, target).toEqual(plainRefused.body);
      expect(JSON.stringify(refused.body), target).not.toMatch(/svc|search-api/);
    }
  });

  it('answers the V2 lists that a team scope thins, or a two-character query leaves whole, in at most 3 round trips', async () => {
    const own = await createTenant();
    const outsider = await addUserTo(own.orgId); // a member of no team
    const post = async (path: string, body: object) => {
      const answer = await call('POST', path, bearer(own), body);
      expect(answer.status, path).toBe(200);
      return answer.body;
    };
    // Unowned applications whose environments come first by name, and a team's whose come last: a walk for the
    // team's reads past the others. Every application's name contains "pp" (a query without a trigram).
    for (const [name, envs] of [
      ['app-one', ['a1', 'a2', 'a3']],
      ['app-two', ['b1', 'b2', 'b3']],
    ] as const) {
      const app = await post(`/api/v1/org/${own.orgId}/app`, { name, env: envs[0] });
      for (const env of envs.slice(1)) await post(`/api/v1/app/${app.applicationId}/env`, { env });
    }
    const owned = await post(`/api/v1/org/${own.orgId}/app`, { name: 'app-team', env: 'zz1' });
    await post(`/api/v1/app/${owned.applicationId}/env`, { env: 'zz2' });
    const team = await post(`/api/v1/org/${own.orgId}/team`, {
      organizationId: own.orgId,
      name: 'rt-team',
      userIds: [own.userId],
      applicationIds: [owned.applicationId],
    });
    const plain = plainHandlers();
    const envs = `/api/v2/org/${own.orgId}/envs`;
    // [target, caller, plain handler, the page's environments in the default order (name; a sort by another field: ties)]
    const cases: [string, Tenant | Omit<Tenant, 'orgId'>, Handler, string[]][] = [
      // 1: the scope, the walk of the list without the query; 2: the applications' names (every one matches); 3: the page.
      [`${envs}?query=pp&pageSize=2`, own, plain.envs, ['a1', 'a2']],
      [`${envs}?query=pp&pageSize=2&sortField=scanDate&sortDir=DESC`, own, plain.envs, []],
      // 2: the hidden applications' ids, beside the walk sized by the team's share; 3: the page.
      [`${envs}?teamIds=${team.team.id}&pageSize=1`, own, plain.envs, ['zz1']],
      [`${envs}?teamIds=${team.team.id}&pageSize=1&sortField=scanDuration&sortDir=DESC`, own, plain.envs, []],
      // 2: the hidden applications' ids, beside the health aggregates; 3: the page.
      [`${envs}?includeAppHealthStats=true&pageSize=2`, outsider, plain.envs, ['a1', 'a2']],
    ];
    for (const [target, who, handler, page] of cases) {
      const { prefetched } = await asWithoutPrefetch(target, who, handler);
      const names = prefetched.body.environments.map((e: { environmentName: string }) => e.environmentName);
      if (!target.includes('sortField')) expect(names, target).toEqual(page);
      expect(prefetched.roundTrips, target).toBeLessThanOrEqual(3);
    }
  });

  it('answers a query whose few matching applications a further name read finds, with a filter beside it, in 3 round trips', async () => {
    const own = await createTenant();
    const post = async (path: string, body: object) => {
      const answer = await call('POST', path, bearer(own), body);
      expect(answer.status, path).toBe(200);
      return answer.body;
    };
    // Each trigram of "abcz" names 54 applications (more than a name sample reads: the smallest partition is read
    // on in the second round trip), and two of them contain it: the set of their environments, read whole.
    for (let i = 0; i < 52; i++) {
      await post(`/api/v1/org/${own.orgId}/app`, { name: `abc-${i}`, env: 'dev' });
      await post(`/api/v1/org/${own.orgId}/app`, { name: `bcz-${i}`, env: 'dev' });
    }
    await post(`/api/v1/org/${own.orgId}/app`, { name: 'abcz-b', env: 'dev' });
    const second = await post(`/api/v1/org/${own.orgId}/app`, { name: 'abcz-a', env: 'qa' });
    await post(`/api/v1/app/${second.applicationId}/env`, { env: 'prod' });
    const envs = `/api/v2/org/${own.orgId}/envs`;
    // By application name, an application's environments come in id order: their names are not told apart.
    const shown = (body: { environments: { environmentName: string; applicationName: string }[] }, byApp: boolean) =>
      body.environments.map((e) => (byApp ? e.applicationName : `${e.applicationName}/${e.environmentName}`));
    const pageFields = ['environments', 'currentPage', 'hasNext', 'nextPage', 'nextPageToken', 'hasPrev', 'prevPage'];
    const beside = (body: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(body).filter(([k]) => !pageFields.includes(k) && k !== 'prevPageToken'));
    for (const [filters, expected] of [
      ['includeAppHealthStats=true', ['abcz-b/dev', 'abcz-a/prod', 'abcz-a/qa']],
      ['includeAppHealthStats=true&sortField=applicationName&sortDir=DESC', ['abcz-b', 'abcz-a', 'abcz-a']],
      ['lastScanStatus=LAST_SCAN_STATUS_UNSPECIFIED&sortField=applicationName', ['abcz-a', 'abcz-a', 'abcz-b']],
    ] as const) {
      // 1: the name samples; 2: the rest of the smallest trigram's names; 3: the matches' environments and their
      // applications (no more of them than the page's size), whole.
      const whole = await call('GET', `${envs}?query=abcz&${filters}&pageSize=3`, bearer(own));
      expect(whole.status, filters).toBe(200);
      expect(shown(whole.body, filters.includes('applicationName')), filters).toEqual(expected);
      expect(whole.body.totalCount, filters).toBe('3');
      expect(whole.roundTrips, filters).toBeLessThanOrEqual(3);
      // Pages of one (more applications than the page's size: the page's read by key after it) answer the same.
      const pages = [];
      for (let page = 0; page < 3; page++) {
        const one = await call('GET', `${envs}?query=abcz&${filters}&pageSize=1&pageToken=${page}`, bearer(own));
        expect(one.status, filters).toBe(200);
        expect(one.body.totalCount, filters).toBe('3');
        // The health figures (of every listed environment) and the rest beside the page's own fields.
        expect(beside(one.body), filters).toEqual(beside(whole.body));
        pages.push(...one.body.environments);
      }
      expect(pages, filters).toEqual(whole.body.environments);
    }
  });

  it('answers a query in name order from its few names in 3 round trips, for a member of no team too: the names beside the hidden ids, the applications beside their environments', async () => {
    const own = await createTenant();
    const outsider = await addUserTo(own.orgId); // a member of no team: the team's applications' ids are read
    const post = async (path: string, body: object) => {
      const answer = await call('POST', path, bearer(own), body);
      expect(answer.status, path).toBe(200);
      return answer.body;
    };
    // Applications named like the query (two of them the team's), one of another type (out of the default scope), and
    // others (an environment named like it is read whole after the page: the query=canary case above).
    const named = [];
    for (const [name, envs] of [
      ['qnx-b', ['dev', 'prod']],
      ['qnx-a', ['stage']],
      ['qnx-team-1', ['dev', 'qa']],
      ['qnx-team-2', ['prod']],
      ['other', ['dev', 'qn-canary']],
      ['unrelated', ['dev']],
    ] as const) {
      const app = await post(`/api/v1/org/${own.orgId}/app`, { name, env: envs[0] });
      named.push(app.applicationId as string);
      for (const env of envs.slice(1)) await post(`/api/v1/app/${app.applicationId}/env`, { env });
    }
    const cloud = {
      name: 'qnx-cloud',
      env: 'aaa',
      applicationType: 'CLOUD',
      cloudScanTargetURL: 'https://c.example.test',
    };
    await post(`/api/v1/org/${own.orgId}/app`, cloud);
    await post(`/api/v1/org/${own.orgId}/team`, {
      organizationId: own.orgId,
      name: 'qn-team',
      userIds: [own.userId],
      applicationIds: [named[2], named[3]],
    });
    const plain = plainHandlers();
    const envs = `/api/v2/org/${own.orgId}/envs`;
    const shown = (body: { environments: { environmentName: string; applicationName: string }[] }) =>
      body.environments.map((e) => `${e.applicationName}/${e.environmentName}`);
    for (const [who, expected] of [
      [own, ['qnx-team-1/dev', 'qnx-b/dev', 'qnx-b/prod', 'qnx-team-2/prod', 'qnx-team-1/qa', 'qnx-a/stage']],
      [outsider, ['qnx-b/dev', 'qnx-b/prod', 'qnx-a/stage']],
    ] as const) {
      // 1: the name samples and the scope's counters; 2: the rest of the names beside the hidden applications' ids;
      // 3: the named applications' environments with the (few) applications, whole.
      const target = `${envs}?query=qnx&pageSize=10`;
      const { prefetched: whole } = await asWithoutPrefetch(target, who, plain.envs);
      expect(shown(whole.body).sort()).toEqual([...expected].sort());
      expect(whole.body.totalCount).toBe(String(expected.length));
      expect(whole.roundTrips).toBeLessThanOrEqual(3);
      // Pages of two (more applications than the page's size: the page's read by key after it) answer the same.
      const pages = [];
      for (let page = 0; page * 2 < expected.length; page++) {
        const two = await call('GET', `${envs}?query=qnx&pageSize=2&pageToken=${page}`, bearer(who));
        const twoPlain = await call(
          'GET',
          `${envs}?query=qnx&pageSize=2&pageToken=${page}`,
          bearer(who),
          undefined,
          plain.envs,
        );
        expect(two.body).toEqual(twoPlain.body);
        expect(two.body.totalCount).toBe(String(expected.length));
        pages.push(...two.body.environments);
      }
      expect(pages).toEqual(whole.body.environments);
    }
  });

  it('answers applicationStatus=ACTIVE over more than 100 applications in 3 round trips: the walk beside the status read', async () => {
    const own = await createTenant();
    for (let i = 0; i < 102; i++)
      expect(
        (await call('POST', `/api/v1/org/${own.orgId}/app`, bearer(own), { name: `st-${i}`, env: 'dev' })).status,
      ).toBe(200);
    expect((await call('POST', `/api/v1/org/${own.orgId}/app`, bearer(own), { name: 'zz-none' })).status).toBe(200);
    const plain = plainHandlers().apps;
    const apps = `/api/v2/org/${own.orgId}/apps`;
    for (const query of ['applicationStatus=ACTIVE&pageSize=2', 'applicationStatus=ACTIVE&pageSize=3&pageToken=1']) {
      const target = `${apps}?${query}`;
      const prefetched = await call('GET', target, bearer(own));
      const unprefetched = await call('GET', target, bearer(own), undefined, plain);
      expect(prefetched.status, query).toBe(200);
      expect(prefetched.body, query).toEqual(unprefetched.body);
      expect(prefetched.body.totalCount, query).toBe('102');
      expect(prefetched.readUnits, query).toBe(unprefetched.readUnits);
      // 1: the scope; 2: the applications without environments, beside the walk's first calls; 3: the page.
      expect(prefetched.roundTrips, query).toBeLessThanOrEqual(3);
    }
    const first = await call('GET', `${apps}?applicationStatus=ACTIVE&pageSize=2`, bearer(own));
    expect(first.body.applications.map((a: { name: string }) => a.name)).toEqual(['st-0', 'st-1']);
  });

  it('answers a query whose names a trigram partition past the read limit holds, few of them matching, in 3 round trips', async () => {
    // 200 applications `app-000000-xxxx` to `app-000199-xxxx` (a tenth owned by a team, one in 50 CLOUD): query
    // app-00001 matches 10 of them (9 STANDARD), its smallest trigram partition (001) holds about 111 names, past
    // the read limit (100): read to its end beside nothing else, its few matches read whole, as the bench's case.
    const own = await createTenant();
    await seedInBulk({ orgId: own.orgId, applications: 200, teamId: randomUUID(), id: () => randomUUID() });
    const outsider = await addUserTo(own.orgId); // a member of no team: the team's applications are hidden
    const apps = `/api/v2/org/${own.orgId}/apps`;
    const plain = plainHandlers().apps;
    // Every application the caller sees, from the unfiltered list (no trigram read): the expected answers.
    const everything = async (who: { token: string }, order: string) => {
      const all = await call('GET', `${apps}?pageSize=1000&${order}`, bearer(who));
      expect(all.status).toBe(200);
      return all.body.applications as { applicationId: string; name: string }[];
    };
    for (const [who, order, size, token] of [
      [own, '', 10, 0],
      [own, 'sortField=applicationId&sortDir=DESC', 10, 0],
      [own, '', 4, 1],
      [outsider, '', 10, 0],
    ] as const) {
      const target = `${apps}?query=app-00001&pageSize=${size}&pageToken=${token}${order ? `&${order}` : ''}`;
      const { prefetched } = await asWithoutPrefetch(target, who, plain);
      // 1: the scope and the trigram samples; 2: the rest of the smallest partition; 3: the matches, whole.
      expect(prefetched.roundTrips, target).toBeLessThanOrEqual(3);
      const matching = (await everything(who, order)).filter((app) => app.name.toLowerCase().includes('app-00001'));
      expect(matching.length, target).toBeGreaterThan(0);
      expect(prefetched.body.totalCount, target).toBe(String(matching.length));
      expect(
        prefetched.body.applications.map((app: { applicationId: string }) => app.applicationId),
        target,
      ).toEqual(matching.slice(size * token, size * (token + 1)).map((app) => app.applicationId));
    }
  });

  it('answers deep pages of the scan-duration and findings orders, with or without a query, in 3 round trips on their learned fences', async () => {
    // 400 applications of 5 environments (a fifth of them named `stage`, a tenth of the applications owned by a team):
    // a first read of each page walks its order call after call and learns its fences (docs/DATA-MODEL.md, List
    // fences); then they are read beside the authorization (a `query` page past a few hundred entries too), and the
    // ranges between them side by side: 3 round trips; a `query`'s from the partition's start once its names are read
    // (the rest of its trigram partition in a second round trip beside the hidden ids, the walk in a third).
    const own = await createTenant();
    await seedInBulk({ orgId: own.orgId, applications: 400, teamId: randomUUID(), id: () => randomUUID() });
    const outsider = await addUserTo(own.orgId); // a member of no team: the team's applications are hidden
    const envs = `/api/v2/org/${own.orgId}/envs`;
    const plain = plainHandlers().envs;
    for (const [who, query] of [
      [own, 'query=stage&pageSize=100&pageToken=2&sortField=scanDuration'],
      [outsider, 'query=stage&pageSize=100&pageToken=2&sortField=scanDuration&sortDir=DESC'],
      [own, 'query=stage&pageSize=50&pageToken=5&sortField=scanFindingsCounts&sortDir=DESC'],
      [outsider, 'pageSize=10&pageToken=120&sortField=scanDuration'],
      [own, 'pageSize=10&pageToken=150&sortField=scanFindingsCounts'],
    ] as const) {
      const target = `${envs}?${query}`;
      const { prefetched, unprefetched } = await asWithoutPrefetch(target, who, plain);
      // A `query`'s tail reads one deviation of its matches' spread past the page: a call more when they fall further.
      expect(prefetched.roundTrips, target).toBeLessThanOrEqual(query.startsWith('query=') ? 5 : 3);
      expect(prefetched.roundTrips, target).toBeLessThanOrEqual(unprefetched.roundTrips!);
      expect(prefetched.body.environments.length, target).toBeGreaterThan(0);
    }
  }, 120_000);

  it('answers a query walk in 3 round trips, exactly and for the same read units as without prefetch: its first call sized by the matches and made beside the rest of the names', async () => {
    // As the bench's cases (scripts/bench/lists.ts): 200 applications of 5 environments (dev, qa, stage, prod, env-N),
    // half of them scanned. query=stage matches a fifth of the environments: the scan-date order walked, its first call
    // sized by that share (as the name samples tell it) and made beside the rest of the names (docs/API.md, How a list
    // is planned); by application name, the applications' walk there. query=app-00001 names 10 applications (50
    // environments): a Query of each one's partition costs less than walking the order to the page (the matches whole,
    // their applications beside them: no more than the page's size; a page of 7 reads them after, in a 4th).
    // 1: the scope and the trigram samples; 2: the rest of the smallest partition, the walk's first call (or the
    // matches); 3: the page's environments and applications.
    const own = await createTenant();
    await seedInBulk({ orgId: own.orgId, applications: 200, teamId: randomUUID(), id: () => randomUUID() });
    const outsider = await addUserTo(own.orgId); // a member of no team: the team's applications are hidden
    const envs = `/api/v2/org/${own.orgId}/envs`;
    const plain = plainHandlers().envs;
    type Listed = { environmentId: string; environmentName: string; applicationName: string };
    for (const [who, text, order, size, token] of [
      [own, 'app-00001', 'sortField=scanDate&sortDir=DESC', 10, 0],
      [own, 'app-00001', 'sortField=scanDate&sortDir=DESC', 10, 3],
      [own, 'app-00001', 'sortField=scanDate&sortDir=ASC', 10, 1],
      [outsider, 'app-00001', 'sortField=scanDate&sortDir=DESC', 10, 0],
      [own, 'stage', 'sortField=scanDate&sortDir=DESC', 10, 0],
      [own, 'stage', 'sortField=scanDate&sortDir=ASC', 10, 2],
      [outsider, 'stage', 'sortField=scanDate&sortDir=DESC', 10, 0],
      [own, 'stage', 'sortField=applicationName&sortDir=ASC', 10, 0],
      [own, 'stage', 'sortField=applicationName&sortDir=DESC', 10, 1],
      [outsider, 'stage', 'sortField=applicationName&sortDir=ASC', 10, 0],
    ] as const) {
      const all = await call('GET', `${envs}?pageSize=1000&${order}`, bearer(who));
      expect(all.status).toBe(200);
      const matching = (all.body.environments as Listed[])
        .filter((e) => `${e.applicationName}/${e.environmentName}`.toLowerCase().includes(text))
        .map((e) => e.environmentId);
      expect(matching.length).toBeGreaterThanOrEqual(40);
      const target = `${envs}?query=${text}&pageSize=${size}&pageToken=${token}&${order}`;
      const { prefetched } = await asWithoutPrefetch(target, who, plain);
      expect(prefetched.roundTrips, target).toBeLessThanOrEqual(3);
      expect(prefetched.body.totalCount, target).toBe(String(matching.length));
      expect(
        prefetched.body.environments.map((e: { environmentId: string }) => e.environmentId),
        target,
      ).toEqual(matching.slice(size * token, size * (token + 1)));
    }
  });

  it('answers as before when what was read early is not what the request needs: another organization, a stale hint', async () => {
    const other = await createTenant();
    // A user of another organization learns nothing about this application: 404, as for an unknown one.
    await call('GET', `/api/v1/app/${appId}`, bearer(other));
    const foreign = await call('GET', `/api/v1/app/${appId}`, bearer(other));
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain('round-trips');

    // A member of both organizations: the hint names the other one first; the answer is still right, in two round trips.
    await addMember({ organizationId: tenant.orgId, userId: other.userId });
    await call('GET', `/api/v1/org/${other.orgId}/teams`, bearer(other)); // the hint is now the other organization
    const second = await call('GET', `/api/v1/app/${appId}`, bearer(other));
    expect(second.status).toBe(200);
    // Removed from the organization: refused at once, whatever this process remembered.
    await removeMember({ organizationId: tenant.orgId, userId: other.userId });
    const removed = await call('GET', `/api/v1/app/${appId}`, bearer(other));
    expect(removed.status).toBe(404);
  });

  it('keeps /user right through membership changes: the organization ids on the user item follow every membership write', async () => {
    const member = await createTenant();
    const second = await createTenant();
    const organizationsOf = async () => {
      const answer = await call('GET', '/api/v1/user', bearer(member));
      expect(answer.status).toBe(200);
      return answer.body.user.external.organizations
        .map((o: { organization: { id: string } }) => o.organization.id)
        .sort();
    };
    const storedIds = async () =>
      [...(((await getItem(keys.user(member.userId)))?.organizationIds as Set<string> | undefined) ?? [])].sort();
    expect(await organizationsOf()).toEqual([member.orgId]); // this process now hints the first organization
    await addMember({ organizationId: second.orgId, userId: member.userId });
    expect(await storedIds()).toEqual([member.orgId, second.orgId].sort());
    expect(await organizationsOf()).toEqual([member.orgId, second.orgId].sort()); // the hint missed the new one: read after
    await removeMember({ organizationId: member.orgId, userId: member.userId });
    expect(await storedIds()).toEqual([second.orgId]);
    expect(await organizationsOf()).toEqual([second.orgId]); // the hint still names the removed one: not listed
    await expect(addMember({ organizationId: second.orgId, userId: member.userId })).rejects.toThrow(
      /already a member/,
    );
    expect(await storedIds()).toEqual([second.orgId]); // a refused membership write leaves the user item as it was
    await removeMember({ organizationId: second.orgId, userId: member.userId });
    expect(await storedIds()).toEqual([]);
    expect((await call('GET', '/api/v1/user', bearer(member))).body.user.external.organizations).toEqual([]);
  });

  it('answers /user for a user item written before it kept its organization ids, from the index', async () => {
    const legacy = await createTenant();
    const other = await createTenant();
    await addMember({ organizationId: other.orgId, userId: legacy.userId });
    // As an earlier version wrote it: no organizationIds, no organizationIdsKept.
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.user(legacy.userId),
        UpdateExpression: 'REMOVE organizationIds, organizationIdsKept',
      }),
    );
    const answer = await call('GET', '/api/v1/user', bearer(legacy));
    expect(answer.status).toBe(200);
    expect(
      answer.body.user.external.organizations.map((o: { organization: { id: string } }) => o.organization.id).sort(),
    ).toEqual([legacy.orgId, other.orgId].sort());
    expect(answer.calls).toBeGreaterThan(2); // the gsi1 query, as before
  });

  it('counts requests refused by authorization against the rate limit, and refuses over the limit before using what it read', async () => {
    const limit = config.rateLimitPerMinute;
    const stranger = await addUserTo((await createTenant()).orgId);
    config.rateLimitPerMinute = 3;
    try {
      for (let i = 0; i < 3; i++)
        expect((await call('GET', `/api/v1/app/${appId}`, bearer(stranger))).status).toBe(404);
      const refused = await call('GET', `/api/v1/app/${appId}`, bearer(stranger));
      expect(refused.status).toBe(429);
      expect(refused.body.message).toMatch(/Rate limit exceeded/);
      // Another user's budget is separate, and within it the answer is the application.
      const colleague = await addUserTo(tenant.orgId);
      expect((await call('GET', `/api/v1/app/${appId}`, bearer(colleague))).status).toBe(200);
    } finally {
      config.rateLimitPerMinute = limit;
    }
  });

  it('answers the overview in 2 round trips: its scope, walks and coverage reads beside the authorization', async () => {
    const own = await createTenant();
    const post = async (path: string, body: object) => {
      const answer = await call('POST', path, bearer(own), body);
      expect(answer.status, path).toBe(200);
      return answer.body;
    };
    // Two applications: one with a completed scan (its findings make it the riskiest, its digest is read), one never
    // scanned (a coverage gap).
    const shop = await post(`/api/v1/org/${own.orgId}/app`, { name: 'ov-shop', env: 'prod' });
    await post(`/api/v1/org/${own.orgId}/app`, { name: 'ov-blog', env: 'prod' });
    const scan = await post(`/api/v1/app/${shop.applicationId}/scan`, {
      env: 'prod',
      config: 'app:\n  env: prod\n',
      host: 'https://ov.example.test',
    });
    const uris = [{ uri: '/q', requestMethod: 'GET', param: 'q', evidence: 'e' }];
    await post(`/api/v1/scan/${scan.scanId}/alerts`, {
      alerts: [{ pluginId: '40018', name: 'SQLi', severity: 'High', uris }],
    });
    await post(`/api/v1/scan/${scan.scanId}/complete`, { status: 'COMPLETED' });

    const path = `/api/v1/org/${own.orgId}/overview`;
    // The same pipeline without the overview's own prefetch: each read made when the overview asks for it.
    const unprefetched = operation(getOrganizationOverviewRoute, ({ caller, params }) =>
      organizationOverview(caller, params.orgId),
    ) as Handler;
    await call('GET', path, bearer(own)); // builds the environment's overdue digest
    const prefetched = await call('GET', path, bearer(own));
    const plain = await call('GET', path, bearer(own), undefined, unprefetched);
    expect(prefetched.status).toBe(200);
    const { generatedAt, ...answer } = prefetched.body;
    expect(Date.parse(generatedAt)).toBeGreaterThan(0);
    expect({ ...plain.body, generatedAt: undefined }).toEqual({ ...answer, generatedAt: undefined });
    expect(answer.riskiestApplications.map((a: { name: string }) => a.name)).toEqual(['ov-shop']);
    expect(answer.coverageGaps.neverScanned).toBe(1);
    expect(answer.overdue.findingsWithDueDate).toBe(1);
    expect(prefetched.readUnits).toBe(plain.readUnits);
    // 1: the rate limit, the authorization, the scope, the first calls of the walks, the coverage counters; 2: the
    // digest, the SLA days and the applications' names.
    expect(prefetched.roundTrips).toBe(2);
    expect(plain.roundTrips).toBeGreaterThan(2);
    // Refused as without the prefetch, and nothing of what it read is answered.
    const stranger = await createTenant();
    const refused = await call('GET', path, bearer(stranger));
    const plainRefused = await call('GET', path, bearer(stranger), undefined, unprefetched);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.body).toEqual(plainRefused.body);
    expect(JSON.stringify(refused.body)).not.toContain('ov-');
  });
});
