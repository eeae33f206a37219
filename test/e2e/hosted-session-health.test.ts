import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { wapitiEngine } from '@hawk-api/scanner/agent';
import { hostedCommand } from '../../scanner/src/commands/hosted.ts';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { startAttackTarget, type AttackTarget } from './attack-target.ts';
import { cloudAppAt, loginConfig, runLog, start, waitForEnd, withAgent } from './hosted-helpers.ts';

// Session health without a loggedOutIndicator (docs/HOSTED-SCANS.md, Login): the agent checks testPath every few
// requests and at the end; a failed check means the session was lost, the requests since the last good check count
// as sent logged out, and the agent logs in again. Real wapiti (a few modules, to keep it short) against the
// vulnerable shop, whose first session ends after a number of requests. A missing wapiti fails these tests.

let target: AttackTarget;
beforeAll(async () => {
  target = await startAttackTarget();
  process.env.HAWK_SCAN_TEST_TARGET_PASSWORD = 's3cret';
  process.env.HAWK_SESSION_CHECK_REQUESTS = '10';
});
afterAll(() => target.stop());
afterEach(() => {
  target.expiring = { count: 0, requests: 0 };
  target.loginsLeft = Infinity;
});

const engines = () => [wapitiEngine({ modules: 'sql,exec,file', maxAttackSeconds: 30 })];

/** `hawk-scanner hosted` with the tenant's key, as a CI job runs it: its exit code. */
async function hostedCli(tenant: Tenant, args: string[]) {
  Object.assign(process.env, { HAWK_API_KEY: tenant.apiKey, HAWK_API_URL: baseUrl() });
  try {
    return await hostedCommand(args);
  } finally {
    delete process.env.HAWK_API_KEY;
    delete process.env.HAWK_API_URL;
  }
}

describe('a hosted scan whose session ends, without a loggedOutIndicator', { timeout: 300_000 }, () => {
  it('notices it by testPath, logs in again, and reads AUTH_DEGRADED with the share sent logged out', async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'session health', target.url);
    // The agent's first session ends after 15 requests to the logged-in area (its testPath included).
    target.expiring = { count: 1, requests: 15 };
    await withAgent(
      tenant,
      async () => {
        // A CI job starts it with hawk-scanner, which waits for its end and fails the build on the verdict.
        const dir = mkdtempSync(join(tmpdir(), 'hawk-hosted-'));
        writeFileSync(join(dir, 'stackhawk.yml'), loginConfig(target.url));
        const args = ['--app', appId, '--env', 'production', '--config', join(dir, 'stackhawk.yml')];
        const code = await hostedCli(tenant, [...args, '--fail-on', 'auth-degraded']).finally(() =>
          rmSync(dir, { recursive: true, force: true }),
        );
        const done = await waitForEnd(tenant, appId);
        const { log } = await runLog(tenant, appId);
        expect(done.status, `${JSON.stringify(done)}\n${log}`).toBe('HOSTED_SCANNER_DISCONNECTED');
        expect(code, log).toBe(3);
        // Another startScan caller's gate: the same verdict read for the scan; another verdict does not fail.
        expect(await hostedCli(tenant, ['--scan', done.scanId, '--fail-on', 'incomplete'])).toBe(3);
        expect(await hostedCli(tenant, ['--scan', done.scanId, '--fail-on', 'low-coverage'])).toBe(0);
        expect(await hostedCli(tenant, ['--scan', done.scanId, '--fail-on', 'clean'])).toBe('usage');
        expect(log).toMatch(/no loggedOutIndicator: testPath is checked every few requests and at the end/);
        expect(log).toMatch(/session check after \d+ requests: testPath FAIL .*the session was lost/);
        expect(log).toMatch(/re-login 1\/5: testPath failed after \d+ requests; logging in again/);
        const coverage = await api('GET', `/api/v1/scan/${done.scanId}/coverage`, { token: tenant.token });
        expect(coverage.status, coverage.text).toBe(200);
        const { requests, authenticatedRequests, relogins, verdict, reasons } = coverage.body;
        expect(relogins).toBeGreaterThanOrEqual(1);
        expect(authenticatedRequests).toBeLessThan(requests);
        expect(authenticatedRequests).toBeGreaterThan(0);
        // Never COMPLETE: the share of requests affected, and that the agent logged in again.
        expect(verdict).toBe('AUTH_DEGRADED');
        const share = Math.round((100 * (requests - authenticatedRequests)) / requests);
        expect(reasons[0]).toBe(
          `${requests - authenticatedRequests} of ${requests} requests (${share}%) went out without a valid session; the agent logged in again ${relogins} times`,
        );
        expect(log).toMatch(/coverage: AUTH_DEGRADED/);
      },
      { engines: engines() },
    );
  });

  it('ends in ERROR (AUTHENTICATION) when it cannot log in again', async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'session lost for good', target.url);
    target.expiring = { count: 1, requests: 15 };
    target.loginsLeft = 1; // the agent's first login; its re-login is refused
    await withAgent(
      tenant,
      async () => {
        expect((await start(tenant, appId, loginConfig(target.url))).status).toBe(200);
        const done = await waitForEnd(tenant, appId);
        const { log } = await runLog(tenant, appId);
        expect(done.status, `${JSON.stringify(done)}\n${log}`).toBe('HOSTED_SCANNER_ERRORED');
        expect(done.command.errors).toEqual([
          {
            errorType: 'AUTHENTICATION',
            message: expect.stringMatching(/^re-login 1 failed: .*findings are discarded/),
          },
        ]);
        expect(log).toMatch(/session check after \d+ requests: testPath FAIL/);
        // A failed scan fails the CI job whatever the gate.
        expect(await hostedCli(tenant, ['--scan', done.scanId, '--fail-on', 'auth-degraded'])).toBe(1);
      },
      { engines: engines() },
    );
  });
});
