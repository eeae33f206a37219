import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { startAttackTarget, type AttackTarget, type LoggedRequest } from './attack-target.ts';
import {
  CLOUD,
  cloudAppAt,
  findings,
  listedScan,
  loginConfig,
  runLog,
  start,
  urisOf,
  waitForEnd,
  withAgent,
} from './hosted-helpers.ts';

// Attack coverage end to end (docs/HOSTED-SCANS.md, Coverage; docs/SCAN-POLICIES.md, Hosted scans and wapiti's
// modules): an embedded agent runs Debian's wapiti with every module the scan policy lets run against a vulnerable
// shop on loopback, which keeps its own log of what it received. A missing wapiti fails these tests.

let target: AttackTarget;
beforeAll(async () => {
  target = await startAttackTarget();
  process.env.HAWK_SCAN_TEST_TARGET_PASSWORD = 's3cret';
  // Every module runs to its end on this small shop well within this; a busy machine may cut one (PARTIAL).
  process.env.HAWK_WAPITI_ATTACK_SECONDS = '30';
});
afterAll(() => target.stop());

/**
 * The requests the engine sent: the agent's own go out with its probe's user agent or none (the login and testPath,
 * Node's http.request); wapiti always names one.
 */
const engineRequests = (sent: LoggedRequest[]) =>
  sent.filter((r) => r.userAgent !== '' && r.userAgent !== 'hawk-scanner agent');
/** Wapiti's error-based SQL payload (`[VALUE]\xBF'"(`) and its time-based ones, as they reach the target. */
const SQL_PAYLOAD = /%BF%27%22%28|sleep%28|benchmark%28|pg_sleep|waitfor/i;
const sqlPayloads = (sent: LoggedRequest[]) => sent.filter((r) => SQL_PAYLOAD.test(`${r.url} ${r.body}`));

async function coverageOf(tenant: Tenant, scanId: string) {
  const coverage = await api('GET', `/api/v1/scan/${scanId}/coverage`, { token: tenant.token });
  expect(coverage.status, coverage.text).toBe(200);
  return coverage.body;
}

async function alertCwes(tenant: Tenant, scanId: string): Promise<Record<string, string>> {
  const alerts = await api('GET', `/api/v1/scan/${scanId}/alerts`, { token: tenant.token, query: { pageSize: 100 } });
  const list = alerts.body.applicationScanResults[0].applicationAlerts as { pluginId: string; cweId: string }[];
  return Object.fromEntries(list.map((alert) => [alert.pluginId, alert.cweId]));
}

describe('attack coverage of a hosted scan', { timeout: 400_000 }, () => {
  it('finds each vulnerability, public and logged in, with a coverage record that agrees with the target', async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'shop', target.url);
    await withAgent(tenant, async () => {
      const before = target.requests.length;
      expect((await start(tenant, appId, loginConfig(target.url))).status).toBe(200);
      const done = await waitForEnd(tenant, appId);
      const log = (await runLog(tenant, appId)).log as string;
      expect(done.status, `${JSON.stringify(done)}\n${log}`).toBe('HOSTED_SCANNER_DISCONNECTED');
      const sent = target.requests.slice(before);
      const found = await findings(tenant, done.scanId);
      const both = (path: string) => [path, `/account${path}`];
      expect(urisOf(found, 'wapiti.sql-injection')).toEqual(expect.arrayContaining(both('/products')));
      expect(urisOf(found, 'wapiti.command-execution')).toEqual(expect.arrayContaining(both('/ping')));
      expect(urisOf(found, 'wapiti.path-traversal')).toEqual(expect.arrayContaining(both('/download')));
      expect(urisOf(found, 'wapiti.crlf-injection')).toEqual(expect.arrayContaining(both('/lang')));
      expect(urisOf(found, 'wapiti.cross-site-scripting')).toEqual(expect.arrayContaining(both('/guestbook')));
      expect(urisOf(found, 'wapiti.open-redirect')).toEqual(expect.arrayContaining(both('/go')));
      // Wapiti reports a cookie without HttpOnly at the target's root, naming the cookie: the public one and the
      // one set behind the login.
      expect(urisOf(found, 'wapiti.httponly-flag-cookie').length).toBeGreaterThan(0);
      expect(log).toMatch(/HttpOnly flag is not set in the cookie : prefs/);
      expect(log).toMatch(/HttpOnly flag is not set in the cookie : account_prefs/);
      expect(await alertCwes(tenant, done.scanId)).toMatchObject({
        'wapiti.sql-injection': '89',
        'wapiti.command-execution': '78',
        'wapiti.path-traversal': '22',
        'wapiti.crlf-injection': '93',
        'wapiti.cross-site-scripting': '79',
        'wapiti.open-redirect': '601',
      });
      // The stored XSS was found as such (permanentxss), the SQL error by the sql module.
      const coverage = await coverageOf(tenant, done.scanId);
      const moduleOf = (name: string) => coverage.modules.find((m: { name: string }) => m.name === name);
      expect(moduleOf('permanentxss').findings).toBeGreaterThanOrEqual(2);
      expect(moduleOf('sql').findings).toBeGreaterThanOrEqual(2);
      expect(coverage.modules.map((m: { name: string }) => m.name).sort()).toEqual(
        [
          'backup',
          'blindsql',
          'cookieflags',
          'crlf',
          'csp',
          'csrf',
          'exec',
          'file',
          'htaccess',
          'http_headers',
          'methods',
          'permanentxss',
          'redirect',
          'shellshock',
          'sql',
          'xss',
        ].sort(),
      );
      // What the engine sent through the agent is what the target received, all of it with the session.
      const engine = engineRequests(sent);
      expect(coverage.requests).toBe(engine.length);
      expect(coverage.authenticatedRequests).toBe(coverage.requests);
      expect(coverage.modules.reduce((n: number, m: { requests: number }) => n + m.requests, 0)).toBeLessThanOrEqual(
        coverage.requests,
      );
      // The pages crawled are the distinct URLs the engine asked for among those the shop links to (and their
      // paths without a query, which wapiti asks for too), the forms the guestbooks' and the login's.
      // (Wapiti encodes a query as a form does: URLs compare in that form.)
      const normal = (url: string) => {
        const parsed = new URL(url, 'http://target');
        return `${parsed.pathname}${parsed.searchParams.size ? `?${parsed.searchParams}` : ''}`;
      };
      const crawlable = new Set(
        ['/', '/account', ...[...target.linked].flatMap((url) => [url, url.split('?')[0]])].map(normal),
      );
      const asked = new Set(engine.filter((r) => r.method === 'GET').map((r) => normal(r.url)));
      expect(coverage.pages).toBe([...crawlable].filter((url) => asked.has(url)).length);
      expect(coverage.pages).toBe(crawlable.size);
      expect(coverage.forms).toBe(3);
      expect(coverage).toMatchObject({ relogins: 0, verdict: expect.stringMatching(/^(COMPLETE|PARTIAL)$/) });
      expect(coverage.durationSeconds).toBeGreaterThan(0);
      expect(coverage.deadlineSeconds).toBeGreaterThanOrEqual(coverage.durationSeconds);
      expect(await listedScan(tenant, done.scanId)).toMatchObject({ status: 'COMPLETED' });
      const scans = await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token, query: CLOUD });
      expect(scans.body.applicationScanResults[0]).toMatchObject({
        scan: { id: done.scanId },
        urlCount: coverage.pages,
      });
      expect(log).toMatch(/coverage: (COMPLETE|PARTIAL).*pages/);
      // The SQL payloads went out (the check of the next test is not vacuous).
      expect(sqlPayloads(sent).length).toBeGreaterThan(0);

      // Another organization's member reads no coverage of this scan.
      const other = await createTenant();
      const hidden = await api('GET', `/api/v1/scan/${done.scanId}/coverage`, { token: other.token });
      expect(hidden.status).toBe(404);
    });
  });

  it('runs no module of a plugin the scan policy disables: with SQL injection off, no SQL payload is sent', async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'no sql', target.url);
    const toggled = await api('GET', `/api/v1/app/${appId}/policy/plugins/40018/disabled`, { token: tenant.token });
    expect(toggled.status, toggled.text).toBe(200);
    await withAgent(tenant, async () => {
      const before = target.requests.length;
      expect((await start(tenant, appId)).status).toBe(200);
      const done = await waitForEnd(tenant, appId);
      const log = (await runLog(tenant, appId)).log as string;
      expect(done.status, `${JSON.stringify(done)}\n${log}`).toBe('HOSTED_SCANNER_DISCONNECTED');
      expect(log).toMatch(/the scan policy leaves out the modules sql,blindsql/);
      expect(sqlPayloads(target.requests.slice(before))).toEqual([]);
      const found = await findings(tenant, done.scanId);
      expect(found['wapiti.sql-injection']).toBeUndefined();
      // The other modules ran.
      expect(urisOf(found, 'wapiti.path-traversal')).toContain('/download');
      const coverage = await coverageOf(tenant, done.scanId);
      const names = coverage.modules.map((m: { name: string }) => m.name);
      expect(names).not.toContain('sql');
      expect(names).not.toContain('blindsql');
      expect(names).toContain('file');
    });
  });
});
