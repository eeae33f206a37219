import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { carryOut, wapitiEngine } from '@hawk-api/scanner/agent';
import { api, baseUrl } from '../integration/client.ts';
import { serviceReadingLogAtEnd } from '../integration/watched-service.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { startVulnerableTarget, type VulnerableTarget } from './vulnerable-target.ts';
import {
  cloudAppAt,
  findings,
  listedScan,
  loginConfig,
  pathOf,
  runLog,
  sleep,
  start,
  urisOf,
  waitFor,
  waitForEnd,
  withAgent,
} from './hosted-helpers.ts';

// Hosted scans end to end with the real engine (docs/HOSTED-SCANS.md): startScan, a scanner agent (the scanner
// package's) takes the scan, logs in as configured, runs Debian's wapiti against a deliberately vulnerable target on
// loopback and reports the findings, which arrive under their alerts. A missing wapiti fails these tests.

const BIN = fileURLToPath(new URL('../../scanner/bin/hawk-scanner.mjs', import.meta.url));

/** The agent's call that ends the run in ERROR (endScanRun, which carries the log: read just after it answered). */
const endsInError = (appId: string, scanKey: string) => (method: string, path: string, body: unknown) =>
  method === 'POST' &&
  path.startsWith(`/api/v1/app/${appId}/perch/runs/${scanKey}/end?`) &&
  (body as { state?: string } | undefined)?.state === 'ERROR';
let target: VulnerableTarget;
beforeAll(async () => {
  target = await startVulnerableTarget();
  process.env.HAWK_SCAN_TEST_TARGET_PASSWORD = 's3cret';
  process.env.HAWK_WAPITI_ATTACK_SECONDS = '20';
});
afterAll(() => target.stop());

const cloudApp = (tenant: Tenant, name: string) => cloudAppAt(tenant, name, target.url);

describe('a hosted scan with wapiti', { timeout: 400_000 }, () => {
  it('logs in with the anti-CSRF form, attacks, and reports the findings under their alerts; a bad login ends in AUTHENTICATION before any attack', async () => {
    const tenant = await createTenant();
    const appId = await cloudApp(tenant, 'logged-in');
    await withAgent(tenant, async () => {
      process.env.HAWK_SCAN_TEST_TARGET_PASSWORD = 's3cret';
      const started = await start(tenant, appId, loginConfig(target.url));
      expect(started.status, started.text).toBe(200);
      const done = await waitForEnd(tenant, appId);
      const log = await runLog(tenant, appId);
      expect(done.status, `${JSON.stringify(done)}\n${log.log}`).toBe('HOSTED_SCANNER_DISCONNECTED');
      expect(done.command.errors ?? []).toEqual([]);
      const found = await findings(tenant, done.scanId);
      expect(urisOf(found, 'wapiti.cross-site-scripting')).toEqual(expect.arrayContaining(['/search']));
      // Reached only while logged in.
      expect(urisOf(found, 'wapiti.cross-site-scripting')).toEqual(expect.arrayContaining(['/account/notes']));
      expect(urisOf(found, 'wapiti.secure-flag-cookie').length).toBeGreaterThan(0);
      expect(await listedScan(tenant, done.scanId)).toMatchObject({ status: 'COMPLETED' });
      expect(log.log).toMatch(/testPath ok/);
      expect(log.log).toMatch(/phase: login[\s\S]*phase: attack[\s\S]*phase: reporting/);
      expect(log.log).not.toContain('s3cret');

      process.env.HAWK_SCAN_TEST_TARGET_PASSWORD = 'wrong';
      const second = await start(tenant, appId, loginConfig(target.url));
      expect(second.status).toBe(200);
      const sentBefore = target.requests.length;
      const failed = await waitForEnd(tenant, appId);
      expect(failed.status).toBe('HOSTED_SCANNER_ERRORED');
      expect(failed.command.errors[0]).toMatchObject({
        errorType: 'AUTHENTICATION',
        message: expect.stringMatching(/testPath|login/),
      });
      expect(await listedScan(tenant, failed.scanId)).toMatchObject({ status: 'ERROR' });
      const failedLog = (await runLog(tenant, appId)).log;
      expect(failedLog).not.toMatch(/phase: attack/);
      expect(failedLog).not.toContain('wrong');
      // Only the probe, the login and testPath reached the target: no attack.
      const sent = target.requests.slice(sentBefore);
      expect(
        sent.every((line) => /^(GET \/|GET \/login|POST \/login|GET \/account)$/.test(line)),
        sent.join('\n'),
      ).toBe(true);
    });
    process.env.HAWK_SCAN_TEST_TARGET_PASSWORD = 's3cret';
  });

  it('finds the same findings with the same hashes twice, triage carrying over; the logged-in page only with a login', async () => {
    const tenant = await createTenant();
    const appId = await cloudApp(tenant, 'twice');
    await withAgent(tenant, async () => {
      expect((await start(tenant, appId)).status).toBe(200);
      const first = await waitForEnd(tenant, appId);
      expect(first.status, JSON.stringify(first)).toBe('HOSTED_SCANNER_DISCONNECTED');
      const before = await findings(tenant, first.scanId);
      expect(urisOf(before, 'wapiti.cross-site-scripting')).toContain('/search');
      expect(urisOf(before, 'wapiti.cross-site-scripting')).not.toContain('/account/notes');
      const xss = before['wapiti.cross-site-scripting'].find((finding) => pathOf(finding.uri) === '/search')!;
      const envId = (await api('GET', `/api/v1/scan/${first.scanId}/alerts`, { token: tenant.token })).body
        .applicationScanResults[0].scan.envId;
      const triaged = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
        token: tenant.token,
        body: { actions: [{ findingHash: xss.findingHash, status: 'RISK_ACCEPTED' }] },
      });
      expect(triaged.status, triaged.text).toBe(200);

      expect((await start(tenant, appId)).status).toBe(200);
      const second = await waitForEnd(tenant, appId);
      expect(second.status, JSON.stringify(second)).toBe('HOSTED_SCANNER_DISCONNECTED');
      expect(second.scanId).not.toBe(first.scanId);
      const after = await findings(tenant, second.scanId);
      const hashes = (found: typeof before) =>
        Object.values(found)
          .flat()
          .map((finding) => finding.findingHash)
          .sort();
      expect(hashes(after)).toEqual(hashes(before));
      expect(after['wapiti.cross-site-scripting'].find((finding) => pathOf(finding.uri) === '/search')).toMatchObject({
        findingHash: xss.findingHash,
        status: 'RISK_ACCEPTED',
      });
    });
  });

  it('stops a scan mid-attack: wapiti ends, the scan ends in ERROR with what the engine had not reported discarded, the agent takes the next one', async () => {
    const tenant = await createTenant();
    const appId = await cloudApp(tenant, 'stopped');
    target.delayMs = 300;
    try {
      await withAgent(tenant, async (deviceId) => {
        const sentBefore = target.requests.length;
        expect((await start(tenant, appId)).status).toBe(200);
        await waitFor(
          'no attack',
          () => runLog(tenant, appId),
          (log) => log.phase === 'attack',
          120,
        );
        // wapiti at work: past the agent's probe (GET /), its crawl reached the target's other pages.
        await waitFor(
          'wapiti sent nothing',
          async () => target.requests.slice(sentBefore),
          (sent) => sent.some((line) => line !== 'GET /'),
          60,
        );
        const stopped = await api('POST', `/api/v1/app/${appId}/perch/stop`, {
          token: tenant.token,
          body: { command: { command: 'STOP' } },
        });
        expect(stopped.body.status).toBe('HOSTED_SCANNER_DISCONNECTED');
        const status = (await api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token })).body.device;
        expect(status.status).toBe('HOSTED_SCANNER_DISCONNECTED');
        expect(await listedScan(tenant, status.scanId)).toMatchObject({ status: 'ERROR' });
        // The agent stops wapiti and frees itself; its log says so.
        const freed = await waitFor(
          'the agent stayed busy',
          async () => (await api('GET', `/api/v1/org/${tenant.orgId}/perch/devices`, { token: tenant.token })).body,
          (list) => list.devices[0]?.scanKey === '',
          60,
        );
        expect(freed.devices[0]).toMatchObject({ deviceId, status: 'ONLINE' });
        const log = await waitFor(
          'the log does not show the stop',
          () => runLog(tenant, appId),
          (log) => /ERROR \(UNKNOWN\): stopped/.test(log.log),
          60,
        );
        expect(log.log).toMatch(/wapiti: stopped: SIGTERM/);
        expect(await findings(tenant, status.scanId)).toEqual({});
        const quiet = target.requests.length;
        await sleep(3000);
        expect(target.requests.length - quiet).toBeLessThanOrEqual(1);

        const next = await start(tenant, appId);
        expect(next.status).toBe(200);
        const taken = await waitFor(
          'the next scan was not taken',
          async () => (await api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token })).body.device,
          (device) => device.id === deviceId,
          60,
        );
        expect(taken.status).toBe('RUNNING');
        await api('POST', `/api/v1/app/${appId}/perch/stop`, { token: tenant.token, body: {} });
      });
    } finally {
      target.delayMs = 0;
    }
  });

  it('ends in ERROR (PROVISIONING) saying how to install an engine when none is installed', async () => {
    const tenant = await createTenant();
    const appId = await cloudApp(tenant, 'no engine');
    await withAgent(
      tenant,
      async () => {
        expect((await start(tenant, appId)).status).toBe(200);
        const failed = await waitForEnd(tenant, appId);
        expect(failed.status).toBe('HOSTED_SCANNER_ERRORED');
        expect(failed.command.errors).toEqual([
          { errorType: 'PROVISIONING', message: expect.stringMatching(/no scan engine.*apt-get install -y wapiti/) },
        ]);
        expect(await listedScan(tenant, failed.scanId)).toMatchObject({ status: 'ERROR' });
      },
      { engines: [wapitiEngine({ command: '/nonexistent/wapiti' })] },
    );
  });

  it('ends in ERROR when the target does not answer, never as a clean scan of nothing', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const created = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: { name: 'down', env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: 'http://127.0.0.1:9/' },
    });
    const appId = created.body.applicationId as string;
    await withAgent(tenant, async () => {
      expect((await start(tenant, appId)).status).toBe(200);
      const failed = await waitForEnd(tenant, appId);
      expect(failed.status).toBe('HOSTED_SCANNER_ERRORED');
      expect(failed.command.errors[0]).toMatchObject({
        errorType: 'UNKNOWN',
        message: expect.stringMatching(/cannot be reached from the agent: ECONNREFUSED/),
      });
      expect(await listedScan(tenant, failed.scanId)).toMatchObject({ status: 'ERROR' });
    });
  });

  it('refuses a private address in a hosted runner unless the organization allowlisted the host', async () => {
    const tenant = await createTenant();
    const appId = await cloudApp(tenant, 'private');
    expect((await start(tenant, appId)).status).toBe(200);
    // An agent takes the command over HTTP; the runner is given it as the service would hand a target that was
    // verified by DNS (no allowlist): allowPrivate false.
    const device = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, {
      token: tenant.token,
      body: { name: 'runner' },
    });
    const deviceId = device.body.deviceId as string;
    const poll = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}/poll`, {
      token: tenant.token,
      body: { waitSeconds: 0 },
    });
    const command = poll.body.command;
    expect(command.allowPrivate).toBe(true);
    await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}/commands/${command.commandId}/ack`, {
      token: tenant.token,
      body: { applicationId: appId },
    });
    const sentBefore = target.requests.length;
    const storedLog = async () => (await runLog(tenant, appId)).log as string;
    // The agent's calls to the service, with the stored log read as soon as the call that ends the run answered.
    const watched = serviceReadingLogAtEnd(tenant.apiKey, endsInError(appId, command.scanKey), storedLog, {
      afterEnd: true,
    });
    const result = await carryOut(
      { ...command, allowPrivate: false },
      {
        api: watched.service,
        deviceId,
        engines: [wapitiEngine()],
        allowPrivate: false,
        signal: new AbortController().signal,
      },
    );
    expect(result).toBe('ERROR');
    const status = (await api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token })).body.device;
    expect(status.command.errors[0]).toMatchObject({
      errorType: 'UNKNOWN',
      message: expect.stringMatching(/127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback, private/),
    });
    expect(target.requests.length).toBe(sentBefore);
    // Whoever sees the run's end reads its whole log: the call that ends the run stored it first.
    expect(watched.logAtEnd()).toMatch(/ERROR \(UNKNOWN\): 127\.0\.0\.1 resolves to/);
    expect(await storedLog()).toBe(watched.logAtEnd());
  });

  it("stores the run's whole log with its end: an ERROR found after the last phase's log upload too, no older upload after it", async () => {
    const tenant = await createTenant();
    const appId = await cloudApp(tenant, 'no engine, watched');
    expect((await start(tenant, appId)).status).toBe(200);
    const device = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, {
      token: tenant.token,
      body: { name: 'watched' },
    });
    const deviceId = device.body.deviceId as string;
    const devicePath = `/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}`;
    const command = (await api('POST', `${devicePath}/poll`, { token: tenant.token, body: { waitSeconds: 0 } })).body
      .command;
    await api('POST', `${devicePath}/commands/${command.commandId}/ack`, {
      token: tenant.token,
      body: { applicationId: appId },
    });
    const storedLog = async () => (await runLog(tenant, appId)).log as string;
    // The stored log read as soon as the call that ends the run answered. The announcement's log upload, held on its
    // way (it does not carry the ERROR line), must land before that call: never after the end's whole log.
    const watched = serviceReadingLogAtEnd(tenant.apiKey, endsInError(appId, command.scanKey), storedLog, {
      afterEnd: true,
      delayLogUploadsMs: 500,
    });
    const result = await carryOut(command, {
      api: watched.service,
      deviceId,
      engines: [wapitiEngine({ command: '/nonexistent/wapiti' })],
      allowPrivate: false,
      signal: new AbortController().signal,
    });
    expect(result).toBe('ERROR');
    expect(watched.uploadsAtEnd()).toBe(0);
    expect(watched.logAtEnd()).toMatch(/ERROR \(PROVISIONING\): no scan engine/);
    expect(await storedLog()).toBe(watched.logAtEnd());
  });

  it('a killed agent reads OFFLINE and its scan ends in ERROR (DEVICE) within the heartbeat window', async () => {
    const tenant = await createTenant();
    const appId = await cloudApp(tenant, 'killed');
    target.delayMs = 300;
    const child = spawn(process.execPath, [BIN, 'agent', '--org', tenant.orgId, '--name', 'doomed'], {
      env: { ...process.env, HAWK_API_KEY: tenant.apiKey, HAWK_API_URL: baseUrl() },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      expect((await start(tenant, appId)).status).toBe(200);
      await waitFor(
        'no attack',
        () => runLog(tenant, appId),
        (log) => log.phase === 'attack',
        120,
      ).catch((error) => {
        throw new Error(`${(error as Error).message}\n${stderr}`);
      });
      const devices = await api('GET', `/api/v1/org/${tenant.orgId}/perch/devices`, { token: tenant.token });
      expect(devices.body.devices).toEqual([
        expect.objectContaining({ name: 'doomed', status: 'ONLINE', applicationId: appId }),
      ]);
      // The agent and its wapiti, at once: no goodbye.
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
      const killedAt = Date.now();
      const failed = await waitForEnd(tenant, appId);
      // The offline window of the test stack (test/integration/global-setup.ts), and a poll's time.
      expect(Date.now() - killedAt).toBeLessThan(20_000);
      expect(failed.status).toBe('HOSTED_SCANNER_ERRORED');
      expect(failed.command.errors).toEqual([
        { errorType: 'DEVICE', message: expect.stringMatching(/doomed stopped sending heartbeats/) },
      ]);
      expect(await listedScan(tenant, failed.scanId)).toMatchObject({ status: 'ERROR' });
      const after = await api('GET', `/api/v1/org/${tenant.orgId}/perch/devices`, { token: tenant.token });
      expect(after.body.devices).toEqual([expect.objectContaining({ name: 'doomed', status: 'OFFLINE', scanKey: '' })]);
    } finally {
      target.delayMs = 0;
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  });
});
