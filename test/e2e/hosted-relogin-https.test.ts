import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../integration/fixtures.ts';
import { runCertificate } from '../../scanner/src/net/run-certificate.ts';
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

// A hosted scan of an HTTPS target whose session expires during the attack (docs/HOSTED-SCANS.md, Login): the
// agent's proxy terminates wapiti's TLS with the run's own certificate, carries the session, notices each answer
// matching loggedOutIndicator, logs in again and goes on, re-encrypting to the target, whose certificate it checks.
// Real wapiti against an HTTPS target on loopback, its certificate signed by an authority of the test's own.

let target: VulnerableTarget;
let targetAuthority: string;
beforeAll(async () => {
  const certificate = await runCertificate('127.0.0.1', new Date(Date.now() + 3600_000));
  targetAuthority = certificate.authority;
  target = await startVulnerableTarget({ key: certificate.key, cert: certificate.chain });
  process.env.HAWK_SCAN_TEST_TARGET_PASSWORD = 's3cret';
  process.env.HAWK_WAPITI_ATTACK_SECONDS = '20';
});
afterAll(() => target.stop());

const indicators = '    loggedInIndicator: "Signed in as"\n    loggedOutIndicator: "location: /login"\n';

describe('a hosted scan of an HTTPS target that loses its session', { timeout: 400_000 }, () => {
  it('terminates the engine TLS with the run certificate, logs in again each time the session is lost, and finds what only a logged-in scan reaches', async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'expiring https', target.url);
    expect(target.url).toMatch(/^https:/);
    target.expiring = { count: 2, requests: 12 };
    await withAgent(
      tenant,
      async () => {
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
        expect(log).toMatch(/HTTPS target: the proxy shows the engine a certificate of the run's own authority/);
        // wapiti checks the proxy's certificate against the run's authority.
        expect(log).toMatch(/wapiti .*--verify-ssl 1/);
        expect(log).toMatch(/re-login 1\/5: the answer to \w+ \/\S* matched loggedOutIndicator; logging in again/);
        expect(log).toMatch(/re-login 1: testPath ok[\s\S]*re-login 1: the scan goes on with the new session/);
        const renewed = Number(log.match(/the session was renewed (\d+) times during the attack/)?.[1]);
        expect(renewed, log).toBeGreaterThanOrEqual(1);
        expect(renewed).toBeLessThanOrEqual(2);
        expect(log).not.toContain('s3cret');
        expect(target.requests.filter((line) => line === 'POST /login').length).toBeGreaterThanOrEqual(renewed + 1);
      },
      { trustedCa: targetAuthority },
    );

    // An agent without the target's authority refuses its certificate before anything is sent.
    const sentBefore = target.requests.length;
    await withAgent(tenant, async () => {
      expect((await start(tenant, appId, loginConfig(target.url, indicators))).status).toBe(200);
      const refused = await waitForEnd(tenant, appId);
      expect(refused.status).toBe('HOSTED_SCANNER_ERRORED');
      expect(refused.command.errors[0].message).toMatch(
        /shows a certificate the agent does not trust.*NODE_EXTRA_CA_CERTS/,
      );
    });
    expect(target.requests.length).toBe(sentBefore);
  });
});
