import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wapitiEngine } from '@hawk-api/scanner/agent';
import { api } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { startAuthorizationTarget } from './authorization-target.ts';
import { formLogin } from '../../scripts/bench/hosted-targets.ts';
import {
  cloudAppAt,
  findings,
  listedScan,
  pathOf,
  runLog,
  start,
  waitFor,
  waitForEnd,
  withAgent,
} from './hosted-helpers.ts';

// The authorization phase end to end (docs/SCANNER-AUTH.md, Authorization testing): an embedded agent runs Debian's
// wapiti as alice against a shop on loopback, then replays alice's crawled requests as bob and without a session
// through its pinning proxy. The shop has exactly two broken checks (any order to any user; the admin's user list to
// any user), a correct one (invoices) and a public product; its own log tells who sent what. A missing wapiti fails
// these tests.

let target: Awaited<ReturnType<typeof startAuthorizationTarget>>;
beforeAll(async () => {
  target = await startAuthorizationTarget();
  process.env.HAWK_SCAN_TEST_TARGET_PASSWORD = 'alice-pw';
  process.env.HAWK_WAPITI_ATTACK_SECONDS = '5';
});
afterAll(() => target.stop());

const login = (user: string, password: string, indent: string) => formLogin(user, password, 'sid', indent);

const config = (host: string, authorization = '') => `app:
  env: production
  host: ${host}
  authentication:
${login('alice', '${HAWK_SCAN_TEST_TARGET_PASSWORD}', '    ')}hawk:
  authorization:
    users:
      - name: bob
        authentication:
${login('bob', 'bob-pw', '          ')}${authorization}`;

async function messageOf(tenant: Tenant, scanId: string, pluginId: string) {
  const uris = await api('GET', `/api/v1/scan/${scanId}/alert/${pluginId}`, { token: tenant.token });
  const [uri] = uris.body.applicationScanAlertUris;
  const message = await api('GET', `/api/v1/scan/${scanId}/uri/${uri.alertUriId}/messages/${uri.msgId}`, {
    token: tenant.token,
  });
  expect(message.status, message.text).toBe(200);
  return message.body;
}

/** Retests the finding and waits for its outcome, with the retest run's log. */
async function retestOutcome(tenant: Tenant, appId: string, hash: string) {
  const queued = await api('POST', `/api/v1/app/${appId}/findings/${hash}/retest`, {
    token: tenant.token,
    query: { env: 'production' },
  });
  expect(queued.status, queued.text).toBe(200);
  const retestId = queued.body.retestId as string;
  const read = await waitFor(
    'the retest did not end',
    async () => (await api('GET', `/api/v1/app/${appId}/retests/${retestId}`, { token: tenant.token })).body,
    (body) => !['QUEUED', 'RUNNING'].includes(body.status),
    120,
  );
  const log = await api('GET', `/api/v1/app/${appId}/perch/log`, { token: tenant.token, query: { scanKey: retestId } });
  return { ...read, log: log.body.log as string };
}

describe('authorization testing in a hosted scan', { timeout: 400_000 }, () => {
  it('refuses an unknown key of hawk.authorization, naming it', async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'shop-typo', target.url);
    const refused = await start(tenant, appId, config(target.url, '    replayUnsafe: true\n'));
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.message).toContain('config.hawk.authorization.replayUnsafe: unknown key');
    const missing = await start(
      tenant,
      appId,
      config(target.url).replace('        authentication:\n', '        auth:\n'),
    );
    expect(missing.status, missing.text).toBe(400);
    expect(missing.body.message).toContain('config.hawk.authorization.users[0].auth: unknown key');
  });

  it('reports exactly the broken object and function checks, with evidence, and replays nothing unsafe', async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'shop', target.url);
    const before = target.requests.length;
    await withAgent(tenant, async () => {
      const started = await start(tenant, appId, config(target.url));
      expect(started.status, started.text).toBe(200);
      const done = await waitForEnd(tenant, appId);
      expect(done.status, JSON.stringify(done)).toBe('HOSTED_SCANNER_DISCONNECTED');
    });
    const log = (await runLog(tenant, appId)).log as string;
    expect(log).toContain('testPath (user bob) ok');
    expect(log).not.toContain('bob-pw');
    const scanId = (await api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token })).body.device
      .scanId as string;
    expect((await listedScan(tenant, scanId))?.status, log).toBe('COMPLETED');

    const found = await findings(tenant, scanId);
    expect((found['hawk.authz.bola'] ?? []).map((f) => pathOf(f.uri))).toEqual(['/api/orders/1001']);
    expect((found['hawk.authz.bfla'] ?? []).map((f) => pathOf(f.uri))).toEqual(['/api/admin/users']);
    const alerts = await api('GET', `/api/v1/scan/${scanId}/alerts`, { token: tenant.token, query: { pageSize: 100 } });
    const cwes = Object.fromEntries(
      (alerts.body.applicationScanResults[0].applicationAlerts as { pluginId: string; cweId: string; name: string }[])
        .filter((alert) => alert.pluginId.startsWith('hawk.authz.'))
        .map((alert) => [alert.name, alert.cweId]),
    );
    expect(cwes).toEqual({ 'Broken object level authorization': '639', 'Broken function level authorization': '285' });

    // Both requests and both answers: bob's in the message, alice's in otherInfo; no session value anywhere.
    const bola = await messageOf(tenant, scanId, 'hawk.authz.bola');
    expect(bola.scanMessage.requestHeader).toMatch(/^GET \S+\/api\/orders\/1001 HTTP\/1.1\n/);
    expect(bola.scanMessage.requestHeader).toContain('cookie: ***');
    expect(bola.scanMessage.responseHeader).toMatch(/^HTTP\/1.1 200/);
    expect(JSON.parse(bola.scanMessage.responseBody)).toMatchObject({ id: 1001, owner: 'alice@shop.test' });
    expect(bola.evidence).toMatch(/^user bob: status 200/);
    expect(bola.otherInfo).toContain("The primary user's request and answer:\n\nGET /api/orders/1001");
    expect(bola.param).toBe('path:{id}');
    const bfla = await messageOf(tenant, scanId, 'hawk.authz.bfla');
    expect(bfla.scanMessage.responseBody).toContain('bob@shop.test');
    expect(bfla.evidence).toMatch(/^user bob: status 200/);

    // Bob and nobody got each GET of alice's with identifiers; neither sent the POST alice's crawl sent.
    const sent = target.requests.slice(before);
    const replayedBy = (user: string) => sent.filter((r) => r.user === user && r.url.startsWith('/api/'));
    expect(new Set(replayedBy('bob').map((r) => `${r.method} ${r.url}`))).toEqual(
      new Set(['GET /api/orders/1001', 'GET /api/invoices/2001', 'GET /api/admin/users', 'GET /api/products/5005']),
    );
    expect(new Set(replayedBy('').map((r) => `${r.method} ${r.url}`))).toEqual(
      new Set(['GET /api/orders/1001', 'GET /api/invoices/2001', 'GET /api/admin/users', 'GET /api/products/5005']),
    );
    const coverage = await api('GET', `/api/v1/scan/${scanId}/coverage`, { token: tenant.token });
    expect(coverage.status, coverage.text).toBe(200);
    expect(coverage.body.authorization).toMatchObject({
      candidates: 4,
      users: [{ name: 'bob', replayed: 4 }],
      unauthenticatedReplayed: 4,
      findings: 2,
      cutBy: '',
    });
    const alicePosted = sent.some((r) => r.user === 'alice' && r.method === 'POST' && r.url.endsWith('/cancel'));
    expect(coverage.body.authorization.skippedUnsafe).toBe(alicePosted ? 1 : 0);

    // A retest of the BOLA finding (docs/HOSTED-SCANS.md, Retests) sends its one request as alice, then as bob and
    // without a session, and compares again: STILL_PRESENT, then, once the shop checks the owner, FIXED.
    const bolaHash = found['hawk.authz.bola']![0].findingHash;
    try {
      await withAgent(tenant, async () => {
        const fromStill = target.requests.length;
        const still = await retestOutcome(tenant, appId, bolaHash);
        expect(still, still.log).toMatchObject({
          status: 'STILL_PRESENT',
          evidence: expect.stringMatching(/^user bob: status 200/),
        });
        expect(still.log).toContain('authorization retest: GET /api/orders/1001');
        expect(still.log).not.toMatch(/wapiti.* -u /);
        expect(
          target.requests
            .slice(fromStill)
            .filter((r) => r.url.startsWith('/api/'))
            .map((r) => `${r.user || 'nobody'} ${r.method} ${r.url}`),
        ).toEqual(['alice GET /api/orders/1001', 'bob GET /api/orders/1001', 'nobody GET /api/orders/1001']);
        target.patched.add('/api/orders');
        const fixed = await retestOutcome(tenant, appId, bolaHash);
        expect(fixed, fixed.log).toMatchObject({ status: 'FIXED', findingHash: bolaHash });
      });
    } finally {
      target.patched.delete('/api/orders');
    }
  });

  it('replays unsafe methods when allowed, and never a path it is told to leave alone', async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'shop-unsafe', target.url);
    const before = target.requests.length;
    const allowing = config(target.url, '    replayUnsafeMethods: true\n    excludePaths: ["^/api/invoices/"]\n');
    await withAgent(tenant, async () => {
      expect((await start(tenant, appId, allowing)).status).toBe(200);
      await waitForEnd(tenant, appId);
    });
    const scanId = (await api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token })).body.device
      .scanId as string;
    const found = await findings(tenant, scanId);
    expect((found['hawk.authz.bola'] ?? []).map((f) => pathOf(f.uri)).sort()).toEqual([
      '/api/orders/1001',
      '/api/orders/1001/cancel',
    ]);
    const sent = target.requests.slice(before).filter((r) => r.user !== 'alice' && r.url.startsWith('/api/'));
    expect(sent.filter((r) => r.method === 'POST').map((r) => `${r.user || 'nobody'} ${r.url}`)).toEqual([
      'bob /api/orders/1001/cancel',
      'nobody /api/orders/1001/cancel',
    ]);
    expect(sent.filter((r) => r.url.startsWith('/api/invoices/'))).toEqual([]);
    const coverage = await api('GET', `/api/v1/scan/${scanId}/coverage`, { token: tenant.token });
    expect(coverage.body.authorization).toMatchObject({ skippedUnsafe: 0, excluded: 1, findings: 3 });
  });

  it('stops at its request budget, saying so in the coverage record (PARTIAL) and the log', async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'shop-budget', target.url);
    const before = target.requests.length;
    // Five requests: two candidates replayed as bob and without a session, then too few left for a third. Wapiti's
    // crawl is what the phase replays: one quick module after it.
    await withAgent(
      tenant,
      async () => {
        expect((await start(tenant, appId, config(target.url, '    maxRequests: 5\n'))).status).toBe(200);
        await waitForEnd(tenant, appId);
      },
      { engines: [wapitiEngine({ modules: 'csp' })] },
    );
    const log = (await runLog(tenant, appId)).log as string;
    expect(log).toContain('authorization: cut short by its request budget');
    const scanId = (await api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token })).body.device
      .scanId as string;
    expect((await listedScan(tenant, scanId))?.status, log).toBe('COMPLETED');
    const replays = target.requests.slice(before).filter((r) => r.user !== 'alice' && r.url.startsWith('/api/'));
    expect(replays.filter((r) => r.user === 'bob')).toHaveLength(2);
    expect(replays.filter((r) => r.user === '')).toHaveLength(2);
    const coverage = (await api('GET', `/api/v1/scan/${scanId}/coverage`, { token: tenant.token })).body;
    expect(coverage.authorization).toMatchObject({
      candidates: 4,
      users: [{ name: 'bob', replayed: 2 }],
      unauthenticatedReplayed: 2,
      cutBy: 'REQUEST_BUDGET',
    });
    expect(coverage.verdict).toBe('PARTIAL');
    expect(coverage.reasons).toContain(
      'the authorization phase was cut by its request budget (hawk.authorization.maxRequests)',
    );
  });
});
