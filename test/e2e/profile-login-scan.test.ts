import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../integration/client.ts';
import { createTenant } from '../integration/fixtures.ts';
import { PASSWORD, USERNAME, startFormTarget, type Target } from '../../scanner/test/profile-targets.ts';
import { cloudAppAt, findings, runLog, start, urisOf, waitFor, waitForEnd, withAgent } from './hosted-helpers.ts';

// From a profile to a finding (docs/PROFILE-SCANS.md "The suggested configuration"): a real agent profiles a
// server-rendered site with a FORM login and an anti-CSRF field, and the configuration the profile suggests, with
// only its ${HAWK_SCAN_USERNAME} and ${HAWK_SCAN_PASSWORD} supplied in the agent's environment, drives a real wapiti scan
// that logs in and finds the reflected XSS only a logged-in scan reaches. The same scan without a login does not.

let target: Target;
beforeAll(async () => {
  target = await startFormTarget();
  process.env.HAWK_WAPITI_ATTACK_SECONDS = '20';
});
afterAll(() => target.close());

describe("a hosted scan with a profile's suggested configuration", { timeout: 500_000 }, () => {
  it('logs in as the profile suggests and finds what only a logged-in scan reaches; without the login it does not', async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'shop', target.url);
    await withAgent(tenant, async () => {
      const launched = await api('POST', `/api/v1/app/${appId}/perch/profile-scan`, { token: tenant.token });
      expect(launched.status, launched.text).toBe(200);
      const result = await waitFor(
        'the profile stored no result',
        async () => api('GET', `/api/v1/app/${appId}/profile/results`, { token: tenant.token }),
        (answer) => answer.status === 200,
        120,
      );
      expect(result.body).toMatchObject({ authConfigPresent: true, scanId: launched.body.scanKey });
      const suggested = result.body.suggestedScanConfig as string;
      expect(suggested).toContain('scanUsername: ${HAWK_SCAN_USERNAME}');
      expect(suggested).toContain('scanPassword: ${HAWK_SCAN_PASSWORD}');
      expect(suggested).not.toContain(PASSWORD);

      // The configuration as suggested: the secrets come from the agent's environment.
      process.env.HAWK_SCAN_USERNAME = USERNAME;
      process.env.HAWK_SCAN_PASSWORD = PASSWORD;
      const started = await start(tenant, appId, suggested);
      expect(started.status, started.text).toBe(200);
      const done = await waitForEnd(tenant, appId);
      const { log } = await runLog(tenant, appId);
      expect(done.status, `${JSON.stringify(done)}\n${log}`).toBe('HOSTED_SCANNER_DISCONNECTED');
      expect(done.command.errors ?? []).toEqual([]);
      expect(log).toMatch(/testPath ok/);
      expect(log).not.toContain(PASSWORD);
      const found = await findings(tenant, done.scanId);
      expect(urisOf(found, 'wapiti.cross-site-scripting'), log).toContain('/account/notes');

      // The control: the same target scanned without a login is sent to the login page and never reaches the notes.
      const sentBefore = target.requests.length;
      const control = await start(tenant, appId);
      expect(control.status, control.text).toBe(200);
      const controlDone = await waitForEnd(tenant, appId);
      expect(controlDone.status, JSON.stringify(controlDone)).toBe('HOSTED_SCANNER_DISCONNECTED');
      const controlFound = await findings(tenant, controlDone.scanId);
      expect(urisOf(controlFound, 'wapiti.cross-site-scripting')).not.toContain('/account/notes');
      const sent = target.requests.slice(sentBefore);
      expect(sent).toContain('GET /account');
      expect(sent.filter((line) => line.startsWith('GET /account/notes'))).toEqual([]);
    });
    delete process.env.HAWK_SCAN_USERNAME;
    delete process.env.HAWK_SCAN_PASSWORD;
  });
});
