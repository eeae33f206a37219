import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { joinTeams } from './app-helpers.ts';
import { completeScan, createApp, reportAlerts, scanOnce, startScan } from './scan-helpers.ts';
import { keys } from '../../shared/db/keys.ts';
import { queryAll } from '../../shared/db/query.ts';
import { getTriageRule, getTriageVersion } from '../../shared/results/finding-repository.ts';
import { getApplication } from '../../shared/applications/application-repository.ts';
import { db } from '../../shared/db/client.ts';
import { config } from '../../shared/config.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createCaller } from '../../shared/identity/caller.ts';
import { runInScope } from '../../shared/context/request-scope.ts';
import { bulkTriageFindings } from '../../shared/findings/triage.ts';
import { envScope } from '../../shared/trends/projections/environment-trend-figures.ts';

// Findings across scans: identity (findingHash), first and last seen, triage and the counts it changes.

const uri = (path: string, param = 'id') => ({
  uri: path,
  requestMethod: 'GET',
  param,
  evidence: `at ${path}`,
  otherInfo: '',
  requestHeader: '',
  requestBody: '',
  responseHeader: '',
  responseBody: '',
});
const sqlInjection = (...paths: string[]) => ({
  pluginId: '40018',
  name: 'SQL Injection',
  severity: 'High',
  description: 'SQLi',
  uris: paths.map((p) => uri(p)),
});
const csp = (...paths: string[]) => ({
  pluginId: '10038',
  name: 'CSP',
  severity: 'Medium',
  description: 'CSP',
  uris: paths.map((p) => uri(p, '')),
});

const triage = (
  tenant: Pick<Tenant, 'orgId' | 'token'>,
  appId: string,
  envId: string,
  actions: unknown[],
  extra: Record<string, unknown> = {},
) =>
  api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
    token: tenant.token,
    body: { actions, ...extra },
  });

async function envView(tenant: Tenant, query: Record<string, unknown> = {}) {
  const out = await api('GET', `/api/v2/org/${tenant.orgId}/envs`, {
    token: tenant.token,
    query: { pageSize: 100, ...query },
  });
  expect(out.status).toBe(200);
  return out.body;
}

async function uriStatuses(token: string, scanId: string, pluginId: string) {
  const out = await api('GET', `/api/v1/scan/${scanId}/alert/${pluginId}`, { token, query: { pageSize: 100 } });
  expect(out.status).toBe(200);
  return Object.fromEntries(
    out.body.applicationScanAlertUris.map((u: { uri: string; status: string }) => [u.uri, u.status]),
  );
}

async function scanResult(token: string, scanId: string) {
  const out = await api('GET', `/api/v1/scan/${scanId}/alerts`, { token });
  expect(out.status).toBe(200);
  return out.body.applicationScanResults[0];
}

async function hashesOf(token: string, scanId: string, pluginId: string): Promise<Record<string, string>> {
  const out = await api('GET', `/api/v1/scan/${scanId}/alert/${pluginId}`, { token, query: { pageSize: 100 } });
  expect(out.status).toBe(200);
  return Object.fromEntries(
    out.body.applicationScanAlertUris.map((u: { uri: string; findingHash: string }) => [u.uri, u.findingHash]),
  );
}

describe('finding identity across scans', () => {
  it('gives literal URIs differing only in ids one hash, the same in later scans of the environment, another in another environment', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const first = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, first.scanId, [
      sqlInjection('/users/1', 'https://target.test/users/2?x=1', '/about'),
    ]);
    await completeScan(tenant.token, first.scanId);
    const second = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, second.scanId, [
      sqlInjection('/users/9b2f0c5e-1d2a-4c3b-8e4f-5a6b7c8d9e0f', '/contact'),
    ]);
    await completeScan(tenant.token, second.scanId);
    const other = await startScan(tenant.token, appId, { env: 'prod' });
    await reportAlerts(tenant.token, other.scanId, [sqlInjection('/users/1')]);
    await completeScan(tenant.token, other.scanId);

    const one = await hashesOf(tenant.token, first.scanId, '40018');
    const two = await hashesOf(tenant.token, second.scanId, '40018');
    const prod = await hashesOf(tenant.token, other.scanId, '40018');
    expect(one['/users/1']).toBe(one['https://target.test/users/2?x=1']);
    expect(one['/about']).not.toBe(one['/users/1']);
    expect(two['/users/9b2f0c5e-1d2a-4c3b-8e4f-5a6b7c8d9e0f']).toBe(one['/users/1']);
    expect(prod['/users/1']).not.toBe(one['/users/1']);

    // Each finding of the environment once, with its first and last scan and its URIs in the last one.
    const { pk, skPrefix } = keys.findingsOfEnvironment(appId, second.envId);
    const findings = await queryAll({ partition: pk, skPrefix });
    const byHash = Object.fromEntries(findings.map((f) => [f.findingHash, f]));
    expect(findings).toHaveLength(3);
    const scanStart = async (scanId: string) =>
      Number(
        (await api('GET', `/api/v1/scan/${scanId}/alerts`, { token: tenant.token })).body.applicationScanResults[0].scan
          .timestamp,
      );
    const [t1, t2] = [await scanStart(first.scanId), await scanStart(second.scanId)];
    expect(byHash[one['/users/1']]).toMatchObject({
      path: '/users/{id}',
      requestMethod: 'GET',
      param: 'id',
      pluginId: '40018',
      severity: 'High',
      firstSeen: t1,
      lastSeen: t2,
      lastScanId: second.scanId,
      lastScanUris: 1,
    });
    expect(byHash[one['/about']]).toMatchObject({
      path: '/about',
      firstSeen: t1,
      lastSeen: t1,
      lastScanId: first.scanId,
      lastScanUris: 1,
    });
    expect(byHash[two['/contact']]).toMatchObject({ firstSeen: t2, lastSeen: t2 });
  });
});

describe('triage', () => {
  it('carries a triage from scan 1 into scans 2 and 3, updates every count at once, and audits each action', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const first = await scanOnce(tenant.token, appId, [sqlInjection('/users/1', '/users/2', '/about'), csp('/x')]);
    const hashes = await hashesOf(tenant.token, first.scanId, '40018');
    const [userHash, aboutHash] = [hashes['/users/1'], hashes['/about']];
    const cspHash = (await hashesOf(tenant.token, first.scanId, '10038'))['/x'];
    expect((await envView(tenant)).environments[0]).toMatchObject({
      lastScanTotalUntriaged: 4,
      lastScanHighUntriaged: 3,
      lastScanMediumUntriaged: 1,
    });

    const out = await triage(tenant, appId, first.envId, [
      { findingHash: userHash, status: 'FALSE_POSITIVE', note: 'test data' },
      { findingHash: 'f'.repeat(64), status: 'RISK_ACCEPTED' },
      { findingHash: aboutHash, status: 'ADD_COMMENT', note: 'look later' },
      { findingHash: cspHash.toUpperCase(), status: 'RISK_ACCEPTED', note: 'internal only' },
    ]);
    expect(out.status, out.text).toBe(200);
    expect(out.body).toMatchObject({ organizationId: tenant.orgId, applicationId: appId, environmentId: first.envId });
    expect(
      out.body.results.map((r: { findingHash: string; success: boolean; status: string }) => [
        r.findingHash,
        r.success,
        r.status,
      ]),
    ).toEqual([
      [userHash, true, 'FALSE_POSITIVE'],
      ['f'.repeat(64), false, 'UNKNOWN'],
      [aboutHash, true, 'ADD_COMMENT'],
      [cspHash, true, 'RISK_ACCEPTED'],
    ]);
    expect(out.body.results[1].error).toContain('not found');
    expect(out.body.results[0]).toMatchObject({ note: 'test data' });
    expect(Date.parse(out.body.results[0].updatedAt)).toBeGreaterThan(Date.now() - 60_000);

    // Counts at once, without a new scan: untriaged = the commented finding only.
    const view = await envView(tenant, { includeAppHealthStats: true });
    expect(view.environments[0]).toMatchObject({
      lastScanTotalUntriaged: 1,
      lastScanHighUntriaged: 1,
      lastScanMediumUntriaged: 0,
      lastScanLowUntriaged: 0,
    });
    expect(view.findingsHealth).toEqual({ high: 1, medium: 0, low: 0, total: 1 });
    const result = await scanResult(tenant.token, first.scanId);
    expect(result.alertStats.alertStatusStats).toEqual([
      { alertStatus: 'FALSE_POSITIVE', totalCount: 2, severityStats: { High: 2, Medium: 0, Low: 0 } },
      { alertStatus: 'RISK_ACCEPTED', totalCount: 1, severityStats: { High: 0, Medium: 1, Low: 0 } },
      { alertStatus: 'ADD_COMMENT', totalCount: 1, severityStats: { High: 1, Medium: 0, Low: 0 } },
    ]);
    const sqli = result.applicationAlerts.find((a: { pluginId: string }) => a.pluginId === '40018');
    expect(sqli.alertStatusStats).toEqual([
      { alertStatus: 'FALSE_POSITIVE', totalCount: 2, severityStats: { High: 2 } },
      { alertStatus: 'ADD_COMMENT', totalCount: 1, severityStats: { High: 1 } },
    ]);
    const page = await api('GET', `/api/v1/scan/${first.scanId}/alert/40018`, { token: tenant.token });
    const users1 = page.body.applicationScanAlertUris.find((u: { uri: string }) => u.uri === '/users/1');
    expect(users1).toMatchObject({
      status: 'FALSE_POSITIVE',
      matchedRuleNote: 'test data',
      matchedRuleUserId: tenant.userId,
      findingHash: userHash,
    });
    expect(Number(users1.matchedRuleLastUpdated)).toBeGreaterThan(0);
    expect(users1.ruleHistories).toMatchObject([
      {
        operation: 'CREATE',
        oldResult: 'UNKNOWN',
        newResult: 'FALSE_POSITIVE',
        note: 'test data',
        userId: tenant.userId,
      },
    ]);

    // A comment keeps a triaged finding's status.
    const commented = await triage(tenant, appId, first.envId, [
      { findingHash: userHash, status: 'ADD_COMMENT', note: 'seeded by fixtures' },
    ]);
    expect(commented.body.results[0]).toMatchObject({
      success: true,
      status: 'FALSE_POSITIVE',
      note: 'seeded by fixtures',
    });
    expect((await envView(tenant)).environments[0].lastScanTotalUntriaged).toBe(1);

    // Scan 2: the same finding at another id keeps its status; a new finding is untriaged; gone findings are gone.
    const second = await scanOnce(tenant.token, appId, [sqlInjection('/users/3', '/new')]);
    expect(await uriStatuses(tenant.token, second.scanId, '40018')).toEqual({
      '/users/3': 'FALSE_POSITIVE',
      '/new': 'UNKNOWN',
    });
    expect((await envView(tenant)).environments[0]).toMatchObject({
      lastScanId: second.scanId,
      lastScanTotalUntriaged: 1,
      lastScanHighUntriaged: 1,
    });
    expect(
      (await scanResult(tenant.token, second.scanId)).alertStats.alertStatusStats.map(
        (s: { alertStatus: string; totalCount: number }) => [s.alertStatus, s.totalCount],
      ),
    ).toEqual([
      ['UNKNOWN', 1],
      ['FALSE_POSITIVE', 1],
    ]);
    // Scan 3: still a false positive, nothing untriaged.
    const third = await scanOnce(tenant.token, appId, [sqlInjection('/users/4')]);
    expect(await uriStatuses(tenant.token, third.scanId, '40018')).toEqual({ '/users/4': 'FALSE_POSITIVE' });
    expect((await envView(tenant)).environments[0]).toMatchObject({
      lastScanId: third.scanId,
      lastScanTotalUntriaged: 0,
    });

    // Reopening through the alert-rule operation counts it again at once.
    const reopened = await api('POST', `/api/v1/app/${appId}/alerts/rules/${randomUUID()}`, {
      token: tenant.token,
      body: {
        alertRuleWrapper: {
          alertRule: [
            {
              alertCondition: { environmentId: first.envId, pluginId: '40018', requestMethod: 'get' },
              parameterizedPath: '/users/{userId}',
              result: 'UNKNOWN',
              note: 'reopened',
            },
          ],
        },
      },
    });
    expect(reopened.status, reopened.text).toBe(200);
    expect(reopened.body).toMatchObject({
      isSuccess: true,
      alertRules: [
        {
          result: 'UNKNOWN',
          note: 'reopened',
          parameterizedPath: '/users/{id}',
          path: '/users/4',
          alertCondition: { pluginId: '40018', requestMethod: 'GET', environmentId: first.envId },
        },
      ],
    });
    expect(reopened.body.alertRules[0].alertRuleHistories.map((h: { newResult: string }) => h.newResult)).toEqual([
      'UNKNOWN',
      'FALSE_POSITIVE',
      'FALSE_POSITIVE',
    ]);
    expect((await envView(tenant)).environments[0]).toMatchObject({
      lastScanTotalUntriaged: 1,
      lastScanHighUntriaged: 1,
    });
    const unknownPath = await api('POST', `/api/v1/app/${appId}/alerts/rules/${randomUUID()}`, {
      token: tenant.token,
      body: {
        alertRuleWrapper: {
          alertRule: [
            {
              alertCondition: { environmentId: first.envId, pluginId: '40018', requestMethod: 'GET' },
              path: '/nowhere',
              result: 'FALSE_POSITIVE',
            },
          ],
        },
      },
    });
    expect(unknownPath.status).toBe(404);

    const audit = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, {
      token: tenant.token,
      query: { pageSize: 1000, types: 'ALERT_RULE_TRIAGED' },
    });
    const entries = audit.body.auditRecords.filter(
      (r: { userActivityType: string }) => r.userActivityType === 'ALERT_RULE_TRIAGED',
    );
    expect(entries).toHaveLength(5); // three of the first request, the comment, the reopening
    expect(
      entries
        .map((e: { payload: string }) => JSON.parse(e.payload))
        .find((p: { findingHash: string; newStatus: string }) => p.findingHash === cspHash),
    ).toMatchObject({
      applicationId: appId,
      envId: first.envId,
      pluginId: '10038',
      oldStatus: 'UNKNOWN',
      newStatus: 'RISK_ACCEPTED',
      note: 'internal only',
    });
  });

  it('applies a bulk triage of many findings in request order, a finding triaged twice in one request too', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const paths = Array.from({ length: 45 }, (_, i) => `/${letters[i % 26]}${letters[Math.floor(i / 26)]}-page`);
    const first = await scanOnce(tenant.token, appId, [sqlInjection(...paths)]);
    const hashes = await hashesOf(tenant.token, first.scanId, '40018');
    expect(Object.keys(hashes)).toHaveLength(45);
    // 45 acceptances (more than one transaction takes), then the first finding again: it sees the acceptance.
    const actions = [
      ...paths.map((p) => ({ findingHash: hashes[p], status: 'RISK_ACCEPTED', note: `accepted ${p}` })),
      { findingHash: hashes[paths[0]!], status: 'FALSE_POSITIVE', note: 'not reachable' },
    ];
    const out = await triage(tenant, appId, first.envId, actions);
    expect(out.status, out.text).toBe(200);
    const results = out.body.results as { findingHash: string; success: boolean; status: string; note: string }[];
    expect(results.map((r) => [r.findingHash, r.success, r.status, r.note])).toEqual(
      actions.map((a) => [a.findingHash, true, a.status, a.note]),
    );
    expect((await envView(tenant)).environments[0]).toMatchObject({ lastScanTotalUntriaged: 0 });
    const result = await scanResult(tenant.token, first.scanId);
    expect(result.alertStats.alertStatusStats).toEqual([
      { alertStatus: 'FALSE_POSITIVE', totalCount: 1, severityStats: { High: 1, Medium: 0, Low: 0 } },
      { alertStatus: 'RISK_ACCEPTED', totalCount: 44, severityStats: { High: 44, Medium: 0, Low: 0 } },
    ]);
    const statuses = await uriStatuses(tenant.token, first.scanId, '40018');
    expect(statuses[paths[0]!]).toBe('FALSE_POSITIVE');
    expect(new Set(paths.slice(1).map((p) => statuses[p]))).toEqual(new Set(['RISK_ACCEPTED']));
    // Each action audited, the twice-triaged finding's second from the acceptance.
    const audit = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, {
      token: tenant.token,
      query: { pageSize: 1000, types: 'ALERT_RULE_TRIAGED' },
    });
    const payloads = (audit.body.auditRecords as { payload: string; userActivityType: string }[])
      .filter((e) => e.userActivityType === 'ALERT_RULE_TRIAGED')
      .map((e) => JSON.parse(e.payload));
    expect(payloads).toHaveLength(46);
    expect(
      payloads
        .filter((p: { findingHash: string }) => p.findingHash === hashes[paths[0]!])
        .map((p: { oldStatus: string; newStatus: string }) => [p.oldStatus, p.newStatus])
        .sort(),
    ).toEqual([
      ['RISK_ACCEPTED', 'FALSE_POSITIVE'],
      ['UNKNOWN', 'RISK_ACCEPTED'],
    ]);
  });

  it('ends a bulk triage where the same actions sent one by one end: rules, histories, figures, audit', async () => {
    // More acceptances than one transaction's items take (each chunk commits the most that fit, from one read),
    // findings triaged again later in the request and several times in a row, comments on triaged and untriaged ones.
    const tenant = await createTenant();
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const paths = Array.from({ length: 40 }, (_, i) => `/${letters[i % 26]}${letters[Math.floor(i / 26)]}-item`);
    const statuses = ['RISK_ACCEPTED', 'FALSE_POSITIVE', 'ADD_COMMENT'];
    const plan = [
      ...paths.map((path) => ({ path, status: 'RISK_ACCEPTED', note: `accept ${path}` })),
      ...paths.slice(0, 6).flatMap((path, i) => [
        { path, status: statuses[i % 3]!, note: `again ${path}` },
        { path, status: statuses[(i + 1) % 3]!, note: `and again ${path}` },
      ]),
      ...paths.slice(30).map((path, i) => ({ path, status: statuses[i % 3]!, note: `late ${path}` })),
      { path: '/csp', status: 'ADD_COMMENT', note: 'untriaged, commented' },
      { path: '/csp', status: 'FALSE_POSITIVE', note: 'then false' },
    ];
    const setUp = async (name: string) => {
      const appId = await createApp(tenant, { name, env: 'dev' });
      const scan = await scanOnce(tenant.token, appId, [sqlInjection(...paths), csp('/csp')]);
      const hashes = {
        ...(await hashesOf(tenant.token, scan.scanId, '40018')),
        ...(await hashesOf(tenant.token, scan.scanId, '10038')),
      };
      const actions = plan.map(({ path, status, note }) => ({ findingHash: hashes[path]!, status, note }));
      return { appId, scan, hashes, actions };
    };
    const [bulk, single] = [await setUp('bulk'), await setUp('one by one')];
    const out = await triage(tenant, bulk.appId, bulk.scan.envId, bulk.actions);
    expect(out.status, out.text).toBe(200);
    const results = [];
    for (const action of single.actions) {
      const one = await triage(tenant, single.appId, single.scan.envId, [action]);
      expect(one.status, one.text).toBe(200);
      results.push(one.body.results[0]);
    }
    const shape = (r: { success: boolean; status: string; note: string; expiresAt: string }) => [
      r.success,
      r.status,
      r.note,
      r.expiresAt !== '',
    ];
    expect(out.body.results.map(shape)).toEqual(results.map(shape));
    // The same rules with the same histories, by path.
    const rules = async (side: typeof bulk) =>
      Object.fromEntries(
        await Promise.all(
          Object.entries(side.hashes).map(async ([path, hash]) => {
            const rule = await getTriageRule({ applicationId: side.appId, environmentId: side.scan.envId }, hash);
            const history = rule?.history.map((h) => [h.operation, h.oldResult, h.newResult, h.note, !!h.expiresAt]);
            return [path, rule && { status: rule.status, note: rule.note, version: rule.version, history }];
          }),
        ),
      );
    expect(await rules(bulk)).toEqual(await rules(single));
    // The same figures: the scan's, its URIs' statuses, the environment's untriaged counts.
    const stats = async (side: typeof bulk) => (await scanResult(tenant.token, side.scan.scanId)).alertStats;
    expect(await stats(bulk)).toEqual(await stats(single));
    const view = await envView(tenant);
    const envOf = (side: typeof bulk) => {
      const env = view.environments.find((e: { environmentId: string }) => e.environmentId === side.scan.envId);
      const { lastScanTotalUntriaged, lastScanHighUntriaged, lastScanMediumUntriaged, lastScanLowUntriaged } = env;
      return { lastScanTotalUntriaged, lastScanHighUntriaged, lastScanMediumUntriaged, lastScanLowUntriaged };
    };
    expect(envOf(bulk)).toEqual(envOf(single));
    // The same trends of the day, triage version (a count of rule changes) and application figures.
    const counters = async (side: typeof bulk) => {
      const env = { applicationId: side.appId, environmentId: side.scan.envId };
      const trends = await api('GET', `/api/v1/org/${tenant.orgId}/app/${side.appId}/env/${env.environmentId}/trends`, {
        token: tenant.token,
        query: { days: 1 },
      });
      expect(trends.status, trends.text).toBe(200);
      const app = (await getApplication(side.appId))!;
      const { high, medium, low, total } = app.health!;
      return {
        trends: trends.body.days,
        triageVersion: await getTriageVersion(env),
        health: { high, medium, low, total },
      };
    };
    expect(await counters(bulk)).toEqual(await counters(single));
    for (const pluginId of ['40018', '10038'])
      expect(await uriStatuses(tenant.token, bulk.scan.scanId, pluginId)).toEqual(
        await uriStatuses(tenant.token, single.scan.scanId, pluginId),
      );
    // One audit entry per action, the same changes per finding.
    const audit = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, {
      token: tenant.token,
      query: { pageSize: 1000, types: 'ALERT_RULE_TRIAGED' },
    });
    const changes = (side: typeof bulk) => {
      const path = Object.fromEntries(Object.entries(side.hashes).map(([p, h]) => [h, p]));
      return (audit.body.auditRecords as { payload: string }[])
        .map((e) => JSON.parse(e.payload))
        .filter((p: { applicationId: string }) => p.applicationId === side.appId)
        .map((p: { findingHash: string; oldStatus: string; newStatus: string; note: string }) =>
          [path[p.findingHash], p.oldStatus, p.newStatus, p.note].join(' '),
        )
        .sort();
    };
    expect(changes(bulk)).toHaveLength(plan.length);
    expect(changes(bulk)).toEqual(changes(single));
  });

  it("reads the trends' total once for all chunks, and a chunk after a publication moved it commits from a new read", async () => {
    // 70 findings: three chunks. In the second environment a publication's move of the trends' version lands right
    // after the first chunk commits: the second chunk's write, conditioned on the version the first one had, fails
    // and its retry reads everything again; both environments end with the same rules and figures.
    const tenant = await createTenant();
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    // Paths that no template makes one issue (/chunked/1 and /chunked/2 would be: one action per chunk).
    const paths = Array.from({ length: 70 }, (_, i) => `/${letters[i % 26]}${letters[Math.floor(i / 26)]}-chunked`);
    const setUp = async (name: string) => {
      const appId = await createApp(tenant, { name, env: 'dev' });
      const scan = await scanOnce(tenant.token, appId, [sqlInjection(...paths)]);
      const hashes = await hashesOf(tenant.token, scan.scanId, '40018');
      const env = { organizationId: tenant.orgId, applicationId: appId, environmentId: scan.envId };
      return { appId, envId: scan.envId, hashes, totalKey: keys.trendTotal(envScope(env)) };
    };
    const [quiet, moved] = [await setUp('quiet'), await setUp('moved')];
    const caller = createCaller({ userId: tenant.userId, apiKeyId: 'key' }, 'write:triage', {
      fullName: 'Chunked Triager',
      email: 'chunked@example.com',
    });
    const run = async (side: typeof quiet, moveAfterFirstWrite: boolean) => {
      const seen = { totalReads: 0, transactions: 0 };
      const name = `countTriageCalls${side.appId}`;
      db.middlewareStack.add(
        (next, context) => async (args) => {
          const input = args.input as { Key?: { sk?: string } };
          if (context.commandName === 'GetItemCommand' && input.Key?.sk === side.totalKey.sk) seen.totalReads += 1;
          // Every transaction sent, the one a moved version cancels too.
          const transaction = context.commandName === 'TransactWriteItemsCommand' ? ++seen.transactions : 0;
          const out = await next(args);
          if (transaction === 1 && moveAfterFirstWrite)
            await db.send(
              new UpdateCommand({
                TableName: config.tableName,
                Key: side.totalKey,
                UpdateExpression: 'SET version = version + :one',
                ExpressionAttributeValues: { ':one': 1 },
              }),
            );
          return out;
        },
        { step: 'initialize', name },
      );
      try {
        const actions = paths.map((path) => ({ findingHash: side.hashes[path]!, status: 'FALSE_POSITIVE', note: 'x' }));
        const scope = { requestId: name, dynamodbCalls: 0 };
        const out = await runInScope(scope, () =>
          bulkTriageFindings(caller, tenant.orgId, side.appId, side.envId, { actions } as never),
        );
        expect(out.results.map((r) => r.success)).toEqual(paths.map(() => true));
      } finally {
        db.middlewareStack.remove(name);
      }
      return seen;
    };
    expect(await run(quiet, false)).toEqual({ totalReads: 1, transactions: 3 });
    expect(await run(moved, true)).toEqual({ totalReads: 2, transactions: 4 });
    const state = async (side: typeof quiet) => {
      const rules = await Promise.all(
        paths.map(
          async (path) =>
            (await getTriageRule({ applicationId: side.appId, environmentId: side.envId }, side.hashes[path]!))?.status,
        ),
      );
      const trends = await api('GET', `/api/v1/org/${tenant.orgId}/app/${side.appId}/env/${side.envId}/trends`, {
        token: tenant.token,
        query: { days: 1 },
      });
      expect(trends.status, trends.text).toBe(200);
      const { high, medium, low, total } = (await getApplication(side.appId))!.health!;
      return { rules, trends: trends.body.days, health: { high, medium, low, total } };
    };
    const [a, b] = [await state(quiet), await state(moved)];
    expect(a.rules).toEqual(paths.map(() => 'FALSE_POSITIVE'));
    expect(b).toEqual(a);
  });

  it('sorts environments by untriaged findings as triage changes them', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const dev = await scanOnce(tenant.token, appId, [sqlInjection('/a', '/b', '/c')]);
    await scanOnce(tenant.token, appId, [sqlInjection('/a', '/b')], 'prod');
    const order = async () =>
      (await envView(tenant, { sortField: 'scanFindingsCounts', sortDir: 'DESC' })).environments.map(
        (e: { environmentName: string }) => e.environmentName,
      );
    expect(await order()).toEqual(['dev', 'prod']);
    const hashes = await hashesOf(tenant.token, dev.scanId, '40018');
    await triage(
      tenant,
      appId,
      dev.envId,
      [hashes['/a'], hashes['/b']].map((findingHash) => ({ findingHash, status: 'FALSE_POSITIVE' })),
    );
    expect(await order()).toEqual(['prod', 'dev']);
  });

  it('applies the alert rules of one request together, in two environments, or none of them when they are too many', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    // 40 findings of one plugin at distinct paths (letters, not ids: each path is its own finding).
    const paths = Array.from({ length: 40 }, (_, i) => `/${String.fromCharCode(97 + (i % 26))}${'z'.repeat(i / 26)}`);
    const dev = await scanOnce(tenant.token, appId, [sqlInjection(...paths)]);
    const stage = await scanOnce(tenant.token, appId, [sqlInjection('/y'), csp('/x')], 'stage');
    const rule = (envId: string, pluginId: string, path: string, result: string, note = '') => ({
      alertCondition: { environmentId: envId, pluginId, requestMethod: 'GET' },
      path,
      result,
      note,
    });
    const upsert = (rules: unknown[]) =>
      api('POST', `/api/v1/app/${appId}/alerts/rules/${randomUUID()}`, {
        token: tenant.token,
        body: { alertRuleWrapper: { alertRule: rules } },
      });
    const auditCount = async () =>
      (
        await api('GET', `/api/v1/org/${tenant.orgId}/audit`, {
          token: tenant.token,
          query: { pageSize: 1000, types: 'ALERT_RULE_TRIAGED' },
        })
      ).body.auditRecords.filter((r: { userActivityType: string }) => r.userActivityType === 'ALERT_RULE_TRIAGED')
        .length;
    const untriaged = async () =>
      Object.fromEntries(
        (await envView(tenant)).environments.map(
          (e: { environmentName: string; lastScanTotalUntriaged: number; lastScanHighUntriaged: number }) => [
            e.environmentName,
            [e.lastScanTotalUntriaged, e.lastScanHighUntriaged],
          ],
        ),
      );
    expect(await untriaged()).toEqual({ dev: [40, 40], stage: [2, 1] });

    // 20 dev findings and both stage findings; a later rule for the same finding wins.
    const applied = await upsert([
      ...paths.slice(0, 20).map((p) => rule(dev.envId, '40018', p, 'FALSE_POSITIVE')),
      rule(stage.envId, '40018', '/y', 'FALSE_POSITIVE'),
      rule(stage.envId, '10038', '/x', 'RISK_ACCEPTED', 'internal'),
      rule(dev.envId, '40018', paths[0]!, 'RISK_ACCEPTED', 'changed my mind'),
    ]);
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.alertRules).toHaveLength(22);
    expect(applied.body.alertRules[0]).toMatchObject({
      path: paths[0],
      result: 'RISK_ACCEPTED',
      note: 'changed my mind',
    });
    expect(await untriaged()).toEqual({ dev: [20, 20], stage: [0, 0] });
    expect(
      (await scanResult(tenant.token, dev.scanId)).alertStats.alertStatusStats.map(
        (s: { alertStatus: string; totalCount: number }) => [s.alertStatus, s.totalCount],
      ),
    ).toEqual(
      expect.arrayContaining([
        ['FALSE_POSITIVE', 19],
        ['RISK_ACCEPTED', 1],
      ]),
    );
    const statuses = await uriStatuses(tenant.token, dev.scanId, '40018');
    expect(Object.values(statuses).filter((s) => s === 'UNKNOWN')).toHaveLength(20);
    expect(await auditCount()).toBe(22);

    // Rules for all 40 dev findings need more writes than one transaction holds: refused, nothing changed.
    const tooMany = await upsert(paths.map((p) => rule(dev.envId, '40018', p, 'RISK_ACCEPTED')));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toMatch(/40 findings.*send fewer rules per request/);
    expect(await untriaged()).toEqual({ dev: [20, 20], stage: [0, 0] });
    expect(await uriStatuses(tenant.token, dev.scanId, '40018')).toEqual(statuses);
    expect(await auditCount()).toBe(22);

    // A rule that matches nothing refuses the whole request before anything is written.
    const missing = await upsert([
      rule(dev.envId, '40018', paths[30]!, 'FALSE_POSITIVE'),
      rule(dev.envId, '40018', '/none', 'FALSE_POSITIVE'),
    ]);
    expect(missing.status).toBe(404);
    expect(await untriaged()).toEqual({ dev: [20, 20], stage: [0, 0] });
    expect(await auditCount()).toBe(22);
  });

  it('refuses invalid requests with 400 and changes nothing; enforces write:triage, team rules and organization isolation', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const scan = await scanOnce(tenant.token, appId, [sqlInjection('/a')]);
    const hash = (await hashesOf(tenant.token, scan.scanId, '40018'))['/a'];
    const ok = [{ findingHash: hash, status: 'FALSE_POSITIVE' }];
    for (const [actions, extra, says] of [
      [[], {}, 'at least one'],
      [Array.from({ length: 101 }, () => ok[0]), {}, 'at most 100'],
      [[{ findingHash: 'xyz', status: 'FALSE_POSITIVE' }], {}, 'findingHash'],
      [[{ findingHash: hash, status: 'PROMOTED' }], {}, 'status'],
      [[{ findingHash: hash, status: 'FALSE_POSITIVE', note: 'n'.repeat(5000) }], {}, 'note'],
      [ok, { environmentId: randomUUID() }, 'environmentId'],
    ] as const) {
      const out = await triage(tenant, appId, scan.envId, actions as unknown[], extra);
      expect(out.status, out.text).toBe(400);
      expect(out.body.message).toContain(says);
    }
    expect(await uriStatuses(tenant.token, scan.scanId, '40018')).toEqual({ '/a': 'UNKNOWN' });
    expect((await triage(tenant, appId, randomUUID(), ok)).status).toBe(404);

    const reader = await addUserTo(tenant.orgId, ['read:scan', 'read:application', 'write:scan']);
    expect((await triage({ orgId: tenant.orgId, token: reader.token }, appId, scan.envId, ok)).status).toBe(401);

    // Another organization: its own path with this application, or this organization's path: never triaged.
    const stranger = await createTenant();
    expect((await triage({ orgId: stranger.orgId, token: stranger.token }, appId, scan.envId, ok)).status).toBe(404);
    expect((await triage({ orgId: tenant.orgId, token: stranger.token }, appId, scan.envId, ok)).status).toBe(401);
    const strangerApp = await createApp(stranger);
    const strangerScan = await scanOnce(stranger.token, strangerApp, [sqlInjection('/a')]);
    const foreign = await triage({ orgId: stranger.orgId, token: stranger.token }, strangerApp, strangerScan.envId, ok);
    expect(foreign.body.results).toMatchObject([{ findingHash: hash, success: false }]);
    expect((await triage({ orgId: stranger.orgId, token: stranger.token }, appId, strangerScan.envId, ok)).status).toBe(
      404,
    );
    expect(await uriStatuses(tenant.token, scan.scanId, '40018')).toEqual({ '/a': 'UNKNOWN' });

    // A team-owned application: its team's members only.
    const member = await addUserTo(tenant.orgId);
    await joinTeams(tenant.orgId, member.userId, [randomUUID()]);
    const teamApp = await createApp({ orgId: tenant.orgId, token: member.token }, { name: 'team app', env: 'dev' });
    const teamScan = await scanOnce(member.token, teamApp, [sqlInjection('/t')]);
    const teamHash = (await hashesOf(member.token, teamScan.scanId, '40018'))['/t'];
    const outsider = await addUserTo(tenant.orgId);
    await joinTeams(tenant.orgId, outsider.userId, [randomUUID()]);
    expect(
      (
        await triage({ orgId: tenant.orgId, token: outsider.token }, teamApp, teamScan.envId, [
          { findingHash: teamHash, status: 'FALSE_POSITIVE' },
        ])
      ).status,
    ).toBe(401);
    const byMember = await triage({ orgId: tenant.orgId, token: member.token }, teamApp, teamScan.envId, [
      { findingHash: teamHash, status: 'FALSE_POSITIVE' },
    ]);
    expect(byMember.body.results[0].success).toBe(true);
  });
});

describe('public-schema fixes around findings', () => {
  it("fills latestScanType and currentScanSummary.alertStats on the deprecated environment list, scanProgress and alerts' scan, and implied config enums", async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'typed', env: 'never' });
    const config =
      'app:\n  env: dev\n  host: https://target.test\n  openApiConf:\n    path: /openapi.json\n  authentication:\n    testPath:\n      path: /me\n      success: ".*"\n' +
      '  waitForAppTarget:\n    path: /health\nhawk:\n  spider:\n    ajax: true\n';
    const started = await startScan(tenant.token, appId, { config });
    await reportAlerts(tenant.token, started.scanId, [sqlInjection('/users/1', '/users/2'), csp('/x')]);
    const running = await scanResult(tenant.token, started.scanId);
    expect(running.scanProgress).toMatchObject({
      scanId: started.scanId,
      plugins: [
        { pluginId: '10038', alertCount: '1', status: 'RUNNING' },
        { pluginId: '40018', alertCount: '2', status: 'RUNNING' },
      ],
    });
    expect(running.applicationAlerts.every((a: { scan: { id: string } }) => a.scan.id === started.scanId)).toBe(true);
    await completeScan(tenant.token, started.scanId);
    expect((await scanResult(tenant.token, started.scanId)).scanProgress).toBeUndefined();
    const hash = (await hashesOf(tenant.token, started.scanId, '40018'))['/users/1'];
    await triage(tenant, appId, started.envId, [{ findingHash: hash, status: 'FALSE_POSITIVE' }]);

    const listed = await api('GET', `/api/v1/app/${appId}/env/list`, { token: tenant.token });
    expect(listed.status).toBe(200);
    const byName = Object.fromEntries(
      listed.body.environments.map((e: { environmentName: string }) => [e.environmentName, e]),
    );
    expect(byName.never).toMatchObject({ latestScanType: 'DEFAULT' });
    expect(byName.never.currentScanSummary).toBeUndefined();
    expect(byName.dev).toMatchObject({
      latestScanType: 'REST',
      currentScanSummary: {
        scanId: started.scanId,
        alertStats: {
          totalAlerts: 3,
          uniqueAlerts: 2,
          alertStatusStats: [
            { alertStatus: 'UNKNOWN', totalCount: 1, severityStats: { High: 0, Medium: 1, Low: 0 } },
            { alertStatus: 'FALSE_POSITIVE', totalCount: 2, severityStats: { High: 2, Medium: 0, Low: 0 } },
          ],
        },
      },
    });

    const conf = (await api('GET', `/api/v1/app/${appId}/config/${started.configHash}`, { token: tenant.token })).body
      .conf;
    expect(conf.app.authentication.testPath).toMatchObject({ path: '/me', type: 'HEADER', requestMethod: 'GET' });
    expect(conf.app.waitForAppTarget).toMatchObject({ path: '/health', requestMethod: 'GET' });
    expect(conf.hawk.spider).toMatchObject({ ajax: true, ajaxBrowser: 'CHROME_HEADLESS' });
    expect(JSON.stringify(conf)).not.toContain('"UNKNOWN"');
  });
});
