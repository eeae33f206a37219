import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../integration/fixtures.ts';
import { startVulnerableTarget, type VulnerableTarget } from './vulnerable-target.ts';
import {
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

// A hosted scan whose session expires during the attack (docs/HOSTED-SCANS.md, Login): the agent's proxy carries
// the session for wapiti, notices each answer matching loggedOutIndicator, logs in again and goes on, so the page
// only a logged-in scan reaches is still attacked. Real wapiti against a target on loopback.

let target: VulnerableTarget;
beforeAll(async () => {
  target = await startVulnerableTarget();
  process.env.HAWK_SCAN_TEST_TARGET_PASSWORD = 's3cret';
  process.env.HAWK_WAPITI_ATTACK_SECONDS = '20';
});
afterAll(() => target.stop());

const indicators = '    loggedInIndicator: "Signed in as"\n    loggedOutIndicator: "location: /login"\n';

describe('a hosted scan that loses its session', { timeout: 400_000 }, () => {
  it('logs in again each time the session is lost, and still finds what only a logged-in scan reaches', async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'expiring', target.url);
    // The first two sessions (the agent's login, then the first re-login) last 12 requests each: fewer than the
    // attack of the logged-in page alone sends.
    target.expiring = { count: 2, requests: 12 };
    await withAgent(tenant, async () => {
      const started = await start(tenant, appId, loginConfig(target.url, indicators));
      expect(started.status, started.text).toBe(200);
      const done = await waitForEnd(tenant, appId);
      const { log } = await runLog(tenant, appId);
      expect(done.status, `${JSON.stringify(done)}\n${log}`).toBe('HOSTED_SCANNER_DISCONNECTED');
      expect(done.command.errors ?? []).toEqual([]);
      const found = await findings(tenant, done.scanId);
      expect(urisOf(found, 'wapiti.cross-site-scripting'), log).toEqual(
        expect.arrayContaining(['/search', '/account/notes']),
      );
      expect(await listedScan(tenant, done.scanId)).toMatchObject({ status: 'COMPLETED' });
      expect(log).toMatch(/the proxy carries the session for the engine and logs in again/);
      expect(log).toMatch(/re-login 1\/5: the answer to \w+ \/\S* matched loggedOutIndicator; logging in again/);
      expect(log).toMatch(/re-login 1: testPath ok[\s\S]*re-login 1: the scan goes on with the new session/);
      const renewed = Number(log.match(/the session was renewed (\d+) times during the attack/)?.[1]);
      expect(renewed, log).toBeGreaterThanOrEqual(1);
      expect(renewed).toBeLessThanOrEqual(2);
      expect(log).not.toContain('s3cret');
      // A login page and a login for the agent's first session and for each re-login.
      expect(target.requests.filter((line) => line === 'POST /login').length).toBeGreaterThanOrEqual(renewed + 1);
    });
  });
});
