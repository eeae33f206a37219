import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent } from '@hawk-api/scanner/agent';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { allowScanDomain } from '../../shared/perch/allowlist.ts';
import { startVulnerableTarget } from './vulnerable-target.ts';

// A hosted scan end to end with the real engine: startScan, a scanner agent (the scanner package's, in process)
// takes it, logs in as configured, runs Debian's wapiti against a deliberately vulnerable target on loopback and
// reports the findings, which arrive under their alerts. A missing wapiti fails this test.

let target: Awaited<ReturnType<typeof startVulnerableTarget>>;
beforeAll(async () => {
  target = await startVulnerableTarget();
});
afterAll(() => target.stop());

const loginConfig = (host: string) => `app:
  env: production
  host: ${host}
  authentication:
    loggedInIndicator: "Signed in as"
    usernamePassword:
      type: FORM
      loginPath: /login
      loginPagePath: /login
      usernameField: username
      passwordField: password
      scanUsername: alice
      scanPassword: \${HAWK_TEST_TARGET_PASSWORD}
    cookieAuthorization:
      cookieNames: [sid]
    testPath:
      path: /account
      type: BODY
      success: "Signed in as"
  antiCsrfParam: csrf
`;

async function waitForEnd(tenant: Tenant, appId: string) {
  for (let i = 0; i < 600; i++) {
    const device = (await api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token })).body.device;
    if (device.status !== 'RUNNING') return device;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('the scan did not end');
}

async function findings(tenant: Tenant, scanId: string) {
  const alerts = await api('GET', `/api/v1/scan/${scanId}/alerts`, { token: tenant.token, query: { pageSize: 100 } });
  expect(alerts.status, alerts.text).toBe(200);
  const out: Record<string, string[]> = {};
  for (const alert of alerts.body.applicationAlerts) {
    const uris = await api('GET', `/api/v1/scan/${scanId}/alert/${alert.pluginId}`, {
      token: tenant.token,
      query: { pageSize: 100 },
    });
    out[alert.pluginId] = uris.body.applicationScanAlertUris.map(
      (u: { uri: string; param?: string }) => `${u.uri} ${u.param ?? ''}`,
    );
  }
  return out;
}

describe('a hosted scan with wapiti', () => {
  it('logs in with the anti-CSRF form, attacks, and reports the findings under their alerts; a bad login ends in AUTHENTICATION', async () => {
    process.env.HAWK_TEST_TARGET_PASSWORD = 's3cret';
    process.env.HAWK_WAPITI_ATTACK_SECONDS = '20';
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const created = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: { name: 'vulnerable', env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: target.url },
    });
    const appId = created.body.applicationId as string;
    const abort = new AbortController();
    const lines: string[] = [];
    const agent = await startAgent({
      url: baseUrl(),
      apiKey: tenant.apiKey,
      orgId: tenant.orgId,
      name: 'test agent',
      signal: abort.signal,
      echo: (line) => lines.push(line),
    });
    try {
      const started = await api('POST', `/api/v1/app/${appId}/perch/start`, {
        token: tenant.token,
        body: { command: { command: 'START', config: loginConfig(target.url) }, env: 'production' },
      });
      expect(started.status, started.text).toBe(200);
      const done = await waitForEnd(tenant, appId);
      expect(done.status, `${JSON.stringify(done)}\n${lines.join('\n')}`).toBe('HOSTED_SCANNER_DISCONNECTED');
      expect(done.command.errors ?? []).toEqual([]);
      const found = await findings(tenant, done.scanId);
      expect(found['wapiti-cross-site-scripting']).toEqual(expect.arrayContaining(['/search q']));
      // Reached only while logged in.
      expect(found['wapiti-cross-site-scripting']).toEqual(expect.arrayContaining(['/account/notes note']));
      expect(Object.keys(found)).toEqual(expect.arrayContaining(['wapiti-secure-flag-cookie']));
      const scans = await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token });
      expect(scans.body.applicationScanResults[0].scan).toMatchObject({ id: done.scanId, status: 'COMPLETED' });
      const log = await api('GET', `/api/v1/app/${appId}/perch/log`, { token: tenant.token });
      expect(log.body.log).toMatch(/testPath ok/);
      expect(log.body.log).not.toContain('s3cret');

      process.env.HAWK_TEST_TARGET_PASSWORD = 'wrong';
      const second = await api('POST', `/api/v1/app/${appId}/perch/start`, {
        token: tenant.token,
        body: { command: { command: 'START', config: loginConfig(target.url) }, env: 'production' },
      });
      expect(second.status).toBe(200);
      const failed = await waitForEnd(tenant, appId);
      expect(failed.status).toBe('HOSTED_SCANNER_ERRORED');
      expect(failed.command.errors[0]).toMatchObject({ errorType: 'AUTHENTICATION' });
      const after = await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token });
      expect(after.body.applicationScanResults[0].scan).toMatchObject({ id: failed.scanId, status: 'ERROR' });
    } finally {
      abort.abort();
      await agent.done;
    }
  }, 300_000);
});
