import { describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { carryOut, service, startAgent, zapEngine } from '@hawk-api/scanner/agent';
import type { Engine } from '../../scanner/src/engines/engine.ts';
import type { CallOptions, Service } from '../../scanner/src/net/service.ts';
import { api, baseUrl } from './client.ts';
import { createTenant, addUserTo, type Tenant } from './fixtures.ts';
import { auditTypes } from './app-helpers.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { verificationToken } from '../../shared/perch/verification.ts';
import { runnerTask, runnerToken } from '../../shared/perch/runner.ts';
import { getDevice, getRun, setScanConcurrency, slotsOf } from '../../shared/perch/repository.ts';
import { reportScanRunStarted } from '../../shared/perch/run-scan.ts';
import { scanStartedBody } from '../../shared/scans/model.ts';
import { createCaller } from '../../shared/identity/caller.ts';
import { addMember } from '../../shared/identity/admin.ts';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { config } from '../../shared/config.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

// The Perch operations and the agent's side of hosted scans (docs/HOSTED-SCANS.md), driven over HTTP as an agent
// would: register, poll, acknowledge, report, with the public start/stop/status/search around them.

async function cloudApp(tenant: Tenant, target = 'http://127.0.0.1:9/') {
  const out = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
    token: tenant.token,
    body: { name: `cloud-${Date.now()}`, env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: target },
  });
  expect(out.status, out.text).toBe(200);
  return out.body.applicationId as string;
}

/** The API key id a tenant's session started with (its token's `akid`). */
const apiKeyIdOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).akid;

const start = (tenant: Tenant, appId: string, body: unknown = { command: { command: 'START' }, env: 'production' }) =>
  api('POST', `/api/v1/app/${appId}/perch/start`, { token: tenant.token, body });
const status = (tenant: Tenant, appId: string) =>
  api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token });

async function register(tenant: Tenant, name = 'agent-1') {
  const out = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, {
    token: tenant.token,
    body: { name, engines: ['wapiti'] },
  });
  expect(out.status, out.text).toBe(200);
  return out.body.deviceId as string;
}
const poll = (
  tenant: Tenant,
  deviceId: string,
  waitSeconds = 0,
  running?: { applicationId: string; scanKey: string },
) =>
  api('POST', `/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}/poll`, {
    token: tenant.token,
    body: { waitSeconds, ...(running ? { running } : {}) },
  });
const ack = (tenant: Tenant, deviceId: string, commandId: string, applicationId: string) =>
  api('POST', `/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}/commands/${commandId}/ack`, {
    token: tenant.token,
    body: { applicationId },
  });

describe('startScan', { timeout: 180_000 }, () => {
  it('answers 400 for a STANDARD application and for an unverified target, 404 for another organization', async () => {
    const tenant = await createTenant();
    const standard = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: { name: 'standard', env: 'production' },
    });
    const notCloud = await start(tenant, standard.body.applicationId);
    expect(notCloud.status).toBe(400);
    expect(notCloud.body.message).toMatch(/not a CLOUD application/);

    const appId = await cloudApp(tenant);
    const unverified = await start(tenant, appId);
    expect(unverified.status).toBe(400);
    expect(unverified.body.message).toMatch(/not verified.*127\.0\.0\.1.*allowlist/);
    expect((await status(tenant, appId)).body).toEqual({});

    const other = await createTenant();
    expect((await start(other, appId)).status).toBe(404);
    expect((await status(other, appId)).status).toBe(404);
    expect(await auditTypes(tenant)).not.toContain('SCAN_STARTED');
  });

  it('verifies the target: the organization token and where to put it; an allowlisted host counts as verified', async () => {
    const tenant = await createTenant();
    const appId = await cloudApp(tenant, 'http://127.0.0.1:9/app');
    const before = await api('POST', `/api/v1/app/${appId}/perch/verify`, { token: tenant.token });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      verified: false,
      host: '127.0.0.1',
      token: verificationToken(tenant.orgId),
      dnsRecordName: '_hawk-verification.127.0.0.1',
      wellKnownUrl: 'http://127.0.0.1:9/.well-known/hawk-verification.txt',
    });
    expect(before.body.problem).toMatch(/loopback, private/);
    const out = execFileSync(
      'npx',
      ['tsx', 'scripts/admin.ts', 'allow-scan-domain', '--org', tenant.orgId, '--domain', '127.0.0.1'],
      { env: { ...process.env, DATA_DIR: '/nonexistent-hawk-dir' }, encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual({ organizationId: tenant.orgId, host: '127.0.0.1' });
    const after = await api('POST', `/api/v1/app/${appId}/perch/verify`, { token: tenant.token });
    expect(after.body).toMatchObject({ verified: true, method: 'allowlist' });
    const app = await api('GET', `/api/v1/app/${appId}`, { token: tenant.token });
    expect(app.body.cloudScanTarget).toEqual({ targetURL: 'http://127.0.0.1:9/app', isDomainVerified: true });
    // A new application on an allowlisted host is verified from the start.
    const second = await cloudApp(tenant, 'http://127.0.0.1:10/');
    expect(
      (await api('GET', `/api/v1/app/${second}`, { token: tenant.token })).body.cloudScanTarget.isDomainVerified,
    ).toBe(true);
  });

  it('queues, hands the command to one agent by id, reports RUNNING, refuses a second start (409), stops (SCAN_ERRORED)', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    // hawkop's exact body: a command outside the enum, and an organization scan configuration by name.
    const missing = await start(tenant, appId, {
      command: { command: 'START' },
      scanConfig: 'nope',
      env: 'production',
    });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/scanConfig: no scan configuration named nope/);
    // A configuration beside `command`, not in it, is refused rather than dropped (the scan would run without it).
    const beside = await start(tenant, appId, {
      command: { command: 'START' },
      config: 'app:\n  env: production\n  host: http://127.0.0.1:9/\n',
      env: 'production',
    });
    expect(beside.status, beside.text).toBe(400);
    expect(beside.body.message).toMatch(/^body\.config: a scan configuration belongs in command\.config/);
    expect((await status(tenant, appId)).body).toEqual({});
    const saved = await api('POST', `/api/v1/configuration/${tenant.orgId}/update`, {
      token: tenant.token,
      body: { name: 'hosted', conf: 'app:\n  env: production\n  host: http://127.0.0.1:9/\n' },
    });
    expect(saved.status, saved.text).toBe(200);
    const started = await start(tenant, appId, {
      command: { command: 'START' },
      scanConfig: 'hosted',
      env: 'production',
      extra: { ignored: true },
    });
    expect(started.status, started.text).toBe(200);
    const scanKey = started.body.scanKey as string;
    expect(scanKey).toMatch(/^[0-9a-f-]{36}$/);
    expect((await status(tenant, appId)).body.device).toMatchObject({
      status: 'RUNNING',
      applicationId: appId,
      command: { id: scanKey, command: 'SCAN_START' },
    });
    const again = await start(tenant, appId);
    expect(again.status).toBe(409);

    const deviceA = await register(tenant, 'agent-a');
    const deviceB = await register(tenant, 'agent-b');
    const offered = await poll(tenant, deviceA);
    expect(offered.body.command).toMatchObject({
      command: 'SCAN_START',
      commandId: scanKey,
      scanKey,
      applicationId: appId,
      env: 'production',
      targetUrl: 'http://127.0.0.1:9/',
      allowPrivate: true,
      // The application's effective policy when the scan started: DEFAULT disables nothing.
      scanPolicy: { name: 'DEFAULT', excludePluginIds: [] },
    });
    expect(offered.body.command.config).toContain('host: http://127.0.0.1:9/');
    // No scan secret referenced: none given (docs/HOSTED-SCANS.md, "Scan secrets").
    expect((await ack(tenant, deviceA, scanKey, appId)).body).toEqual({
      acknowledged: true,
      alreadyAcknowledged: false,
      secrets: {},
    });
    // Delivered twice: runs once.
    expect((await ack(tenant, deviceA, scanKey, appId)).body).toEqual({
      acknowledged: true,
      alreadyAcknowledged: true,
      secrets: {},
    });
    expect((await ack(tenant, deviceB, scanKey, appId)).status).toBe(409);
    expect((await poll(tenant, deviceB)).body).toEqual({});

    const running = await api('POST', `/api/v1/app/${appId}/perch/runs/${scanKey}`, {
      token: tenant.token,
      body: { deviceId: deviceA, phase: 'attack' },
    });
    expect(running.body.device).toMatchObject({ status: 'RUNNING', name: 'agent-a', id: deviceA });
    const log = await api('PUT', `/api/v1/app/${appId}/perch/runs/${scanKey}/log`, {
      token: tenant.token,
      query: { deviceId: deviceA },
      rawBody: '12:00:00 claimed\n12:00:01 attack\n',
      contentType: 'text/plain',
    });
    expect(log.status, log.text).toBe(200);
    const read = await api('GET', `/api/v1/app/${appId}/perch/log`, { token: tenant.token });
    expect(read.body).toMatchObject({
      scanKey,
      state: 'RUNNING',
      phase: 'attack',
      log: '12:00:00 claimed\n12:00:01 attack\n',
    });

    const search = await api('POST', `/api/v1/org/${tenant.orgId}/perch/status`, {
      token: tenant.token,
      body: { page: { filters: [{ name: 'queryAppIds', value: appId }] } },
    });
    expect(search.body.perchDevices).toHaveLength(1);
    expect(search.body.perchDevices[0]).toMatchObject({ applicationId: appId, status: 'RUNNING' });
    expect(
      (await api('POST', `/api/v1/org/${tenant.orgId}/perch/status`, { token: tenant.token, body: {} })).body,
    ).toEqual({ perchDevices: [], totalCount: '0' });

    // hawkop's stop body.
    const stopped = await api('POST', `/api/v1/app/${appId}/perch/stop`, {
      token: tenant.token,
      body: { command: { command: 'STOP' } },
    });
    expect(stopped.status, stopped.text).toBe(200);
    expect(stopped.body.status).toBe('HOSTED_SCANNER_DISCONNECTED');
    const stopCommand = (await poll(tenant, deviceA, 0, { applicationId: appId, scanKey })).body.command;
    expect(stopCommand).toMatchObject({ command: 'SCAN_STOP', scanKey });
    expect((await ack(tenant, deviceA, stopCommand.commandId, appId)).body.acknowledged).toBe(true);
    expect((await status(tenant, appId)).body.device.status).toBe('HOSTED_SCANNER_DISCONNECTED');
    expect((await api('POST', `/api/v1/app/${appId}/perch/stop`, { token: tenant.token, body: {} })).status).toBe(404);
    // The run's later reports change nothing; the device is free for the next scan.
    const late = await api('POST', `/api/v1/app/${appId}/perch/runs/${scanKey}`, {
      token: tenant.token,
      body: { deviceId: deviceA, state: 'COMPLETED' },
    });
    expect(late.body.device.status).toBe('HOSTED_SCANNER_DISCONNECTED');
    const next = await start(tenant, appId);
    expect(next.status).toBe(200);
    expect((await poll(tenant, deviceA)).body.command.commandId).toBe(next.body.scanKey);
    expect(await auditTypes(tenant)).toEqual(expect.arrayContaining(['SCAN_STARTED', 'SCAN_ERRORED']));
  });

  it('ends the run of an agent whose heartbeats stop in ERROR (DEVICE), and ends its reported scan in ERROR', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    const { scanKey } = (await start(tenant, appId)).body;
    const deviceId = await register(tenant);
    await ack(tenant, deviceId, scanKey, appId);
    const reported = await api('POST', `/api/v1/app/${appId}/scan`, {
      token: tenant.token,
      body: {
        env: 'production',
        config: 'app:\n  env: production\n',
        hawkscanVersion: 'hawk-agent',
        host: 'http://127.0.0.1:9/',
      },
    });
    await api('POST', `/api/v1/app/${appId}/perch/runs/${scanKey}`, {
      token: tenant.token,
      body: { deviceId, scanId: reported.body.scanId, phase: 'attack' },
    });
    // PERCH_OFFLINE_AFTER_SECONDS is short in the test stack (test/integration/global-setup.ts).
    let device: any;
    for (let i = 0; i < 60; i++) {
      device = (await status(tenant, appId)).body.device;
      if (device.status !== 'RUNNING') break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(device.status).toBe('HOSTED_SCANNER_ERRORED');
    expect(device.command.errors).toEqual([
      { errorType: 'DEVICE', message: expect.stringMatching(/stopped sending heartbeats.*start the scan again/) },
    ]);
    // The scan list shows CLOUD applications' scans when asked for them (its applicationTypes default is STANDARD).
    const scans = await api('GET', `/api/v1/scan/${tenant.orgId}`, {
      token: tenant.token,
      query: { applicationTypes: 'CLOUD' },
    });
    expect(scans.body.applicationScanResults[0].scan).toMatchObject({ id: reported.body.scanId, status: 'ERROR' });
  });

  it('keeps the public permissions: write:scan to start, read:device to read', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    const reader = await addUserTo(tenant.orgId, ['read:application', 'read:device']);
    const readerTenant = { ...reader, orgId: tenant.orgId };
    expect((await start(readerTenant, appId)).status).toBe(401);
    expect((await status(readerTenant, appId)).status).toBe(200);
    const writer = await addUserTo(tenant.orgId, ['write:scan']);
    expect((await status({ ...writer, orgId: tenant.orgId }, appId)).status).toBe(401);
    expect(
      (
        await api('POST', `/api/v1/org/${tenant.orgId}/perch/status`, {
          token: tenant.token,
          body: { page: { filters: [{ name: 'queryAppIds', multi: { values: [appId, crypto.randomUUID()] } }] } },
        })
      ).status,
    ).toBe(403);
  });
});

describe('the hosted runner (docs/HOSTED-SCANS.md, "Where scans run")', { timeout: 180_000 }, () => {
  /** The ECS task's container command, run as a plain process with the task's environment (no Docker here). */
  function runTask(input: ReturnType<typeof runnerTask>, extraEnv: Record<string, string> = {}) {
    const [container] = input.overrides!.containerOverrides!;
    const env: Record<string, string | undefined> = { ...process.env, HAWK_API_KEY: '', ...extraEnv };
    for (const { name, value } of container.environment!) env[name!] = value;
    const child = spawn(process.execPath, [join(ROOT, 'scanner/bin/hawk-scanner.mjs'), ...container.command!], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    return new Promise<{ code: number | null; output: string }>((resolve) =>
      child.on('close', (code) => resolve({ code, output })),
    );
  }
  const runnerAt = (apiUrl: string) => ({
    cluster: 'runner-cluster',
    taskDefinition: 'runner-task',
    subnets: ['subnet-1', 'subnet-2'],
    securityGroup: 'sg-1',
    apiUrl,
  });

  it("runs the task's command and environment: the agent takes the run once with the run's own narrow token, and a missing engine ends it in ERROR", async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    const started = await start(tenant, appId);
    expect(started.status, started.text).toBe(200);
    const run = (await getRun(appId, true))!;
    const caller = createCaller({ userId: tenant.userId, apiKeyId: apiKeyIdOf(tenant.token) }, undefined);
    const token = await runnerToken(caller, run);
    const input = runnerTask(run, runnerAt(baseUrl()), token);
    expect(input).toMatchObject({ launchType: 'FARGATE', clientToken: run.scanKey, cluster: 'runner-cluster' });
    expect(input.overrides!.containerOverrides![0].command).not.toContain(token);

    // The token is worth only the agent's operations, and only until the run's end at the latest: its wait in the
    // queue (until deadlineAt), then its scan.
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims.scp).toEqual(['write:device', 'write:scan']);
    // And worth only in the run's organization: the starter's other organizations (their queues and scan secrets)
    // are out of a runner's reach.
    expect(claims.org).toBe(tenant.orgId);
    const elsewhere = await createTenant();
    await addMember({ organizationId: elsewhere.orgId, userId: tenant.userId });
    const device = { name: 'stray', engines: ['wapiti'] };
    const there = await api('POST', `/api/v1/org/${elsewhere.orgId}/perch/devices`, { token, body: device });
    expect(there.status, there.text).toBe(401);
    // It names its run (signed): the device the runner registers is known by it when its task stops.
    expect(claims.run).toBe(run.scanKey);
    expect(claims.exp).toBeLessThanOrEqual(Math.floor((run.deadlineAt + config.perchMaxScanSeconds * 1000) / 1000));
    const idle = input.overrides!.containerOverrides![0].command!;
    expect(Number(idle[idle.indexOf('--max-idle') + 1])).toBeGreaterThanOrEqual(
      Math.floor((run.deadlineAt - Date.now()) / 1000),
    );
    expect(claims.exp - claims.iat).toBeGreaterThan(30 * 60);
    expect((await api('GET', `/api/v1/app/${appId}`, { token })).status).toBe(401);
    // Nor is it refreshed into the starter's whole session.
    const refreshed = await api('GET', '/api/v1/auth/refresh-token', { token });
    expect(refreshed.status).toBe(401);
    expect(refreshed.body.message).toMatch(/hosted runner's token lasts its run/);
    expect((await api('GET', '/api/v1/auth/refresh-token', { token: tenant.token })).status).toBe(200);

    const { code, output } = await runTask(input, { HAWK_WAPITI: '/nonexistent/wapiti' });
    expect(code, output).toBe(0);
    const done = (await status(tenant, appId)).body.device;
    expect(done).toMatchObject({ status: 'HOSTED_SCANNER_ERRORED', name: `hosted runner ${run.scanKey.slice(0, 8)}` });
    expect(done.command.errors[0]).toMatchObject({
      errorType: 'PROVISIONING',
      message: expect.stringMatching(/no scan engine is installed.*apt-get install -y wapiti/),
    });
  });

  it("runs only the engine the image names (HAWK_ENGINE=zap, the runner image's build argument): ZAP missing, the run ends in PROVISIONING though wapiti is installed", async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    expect((await start(tenant, appId)).status).toBe(200);
    const run = (await getRun(appId, true))!;
    const caller = createCaller({ userId: tenant.userId, apiKeyId: apiKeyIdOf(tenant.token) }, undefined);
    const input = runnerTask(run, runnerAt(baseUrl()), await runnerToken(caller, run));
    const { code, output } = await runTask(input, { HAWK_ENGINE: 'zap', HAWK_ZAP: '/nonexistent/zap.sh' });
    expect(code, output).toBe(0);
    expect(output).toMatch(/engines: none installed/);
    const device = (await status(tenant, appId)).body.device;
    expect(device.command.errors[0]).toMatchObject({
      errorType: 'PROVISIONING',
      message: expect.stringMatching(/no scan engine is installed on this agent: install OWASP ZAP/),
    });
  });

  it('ends a run in ERROR (PROVISIONING) saying how to install OWASP ZAP when the agent runs ZAP and it is missing', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    expect((await start(tenant, appId)).status).toBe(200);
    const deviceId = await register(tenant, 'zap agent');
    const command = (await poll(tenant, deviceId)).body.command;
    expect((await ack(tenant, deviceId, command.commandId, appId)).status).toBe(200);
    const result = await carryOut(command, {
      api: service({ url: baseUrl(), apiKey: tenant.apiKey }),
      deviceId,
      engines: [zapEngine({ command: '/nonexistent/zap.sh' })],
      allowPrivate: false,
      signal: new AbortController().signal,
    });
    expect(result).toBe('ERROR');
    const device = (await status(tenant, appId)).body.device;
    expect(device).toMatchObject({
      status: 'HOSTED_SCANNER_ERRORED',
      command: { errors: [{ errorType: 'PROVISIONING' }] },
    });
    expect(device.command.errors[0].message).toMatch(
      /no scan engine is installed on this agent: install OWASP ZAP 2\.14/,
    );
    const log = (await api('GET', `/api/v1/app/${appId}/perch/log`, { token: tenant.token })).body.log;
    expect(log).toMatch(/engine zap: not installed/);
  });

  it('exits when another agent took its run (--max-idle)', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    expect((await start(tenant, appId)).status).toBe(200);
    const run = (await getRun(appId, true))!;
    // Another agent takes the run first.
    const other = await register(tenant, 'other agent');
    const command = (await poll(tenant, other)).body.command;
    expect((await ack(tenant, other, command.commandId, appId)).status).toBe(200);
    const caller = createCaller({ userId: tenant.userId, apiKeyId: apiKeyIdOf(tenant.token) }, undefined);
    const input = runnerTask(run, runnerAt(baseUrl()), await runnerToken(caller, run));
    const [container] = input.overrides!.containerOverrides!;
    container.command = container.command!.map((arg, i, all) => (all[i - 1] === '--max-idle' ? '2' : arg));
    const { code, output } = await runTask(input);
    expect(code, output).toBe(0);
    expect(output).toMatch(/no scan taken in 2 s: stopping/);
  });

  it('ends a run that no agent took before its deadline in ERROR (PROVISIONING), its queue entry gone', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    expect((await start(tenant, appId)).status).toBe(200);
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.perchRun(appId),
        UpdateExpression: 'SET deadlineAt = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1000 },
      }),
    );
    const device = (await status(tenant, appId)).body.device;
    expect(device.status).toBe('HOSTED_SCANNER_ERRORED');
    expect(device.command.errors[0]).toMatchObject({
      errorType: 'PROVISIONING',
      message: expect.stringMatching(/no scanner agent took the scan before its deadline/),
    });
    // Nothing is left in the organization's queue for an agent to take, and the application can scan again.
    const agent = await register(tenant);
    expect((await poll(tenant, agent)).body.command).toBeUndefined();
    expect((await start(tenant, appId)).status).toBe(200);
  });
});

describe("the organization's concurrency limit (docs/HOSTED-SCANS.md, Concurrency)", { timeout: 180_000 }, () => {
  const runLog = (tenant: Tenant, appId: string) =>
    api('GET', `/api/v1/app/${appId}/perch/log`, { token: tenant.token });
  const end = (tenant: Tenant, appId: string, scanKey: string, deviceId: string) =>
    api('POST', `/api/v1/app/${appId}/perch/runs/${scanKey}`, {
      token: tenant.token,
      body: { deviceId, state: 'COMPLETED' },
    });

  it('keeps starts beyond the limit QUEUED, starts them as slots free (end, stop, silent agent), and a stop removes a queued one', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const out = execFileSync(
      'npx',
      ['tsx', 'scripts/admin.ts', 'set-scan-concurrency', '--org', tenant.orgId, '--limit', '2'],
      { env: { ...process.env, DATA_DIR: '/nonexistent-hawk-dir' }, encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual({ organizationId: tenant.orgId, limit: 2, running: 0 });
    const apps = [await cloudApp(tenant), await cloudApp(tenant), await cloudApp(tenant), await cloudApp(tenant)];
    const keysOf: string[] = [];
    for (const appId of apps.slice(0, 3)) {
      const started = await start(tenant, appId);
      expect(started.status, started.text).toBe(200);
      keysOf.push(started.body.scanKey);
    }
    const [a, b, c] = [await register(tenant, 'a'), await register(tenant, 'b'), await register(tenant, 'c')];
    for (const [device, i] of [
      [a, 0],
      [b, 1],
    ] as const) {
      const offered = (await poll(tenant, device)).body.command;
      expect(offered).toMatchObject({ command: 'SCAN_START', scanKey: keysOf[i] });
      expect((await ack(tenant, device, offered.commandId, apps[i])).status).toBe(200);
    }
    // At the limit: the third waits, shown as an active run with why it waits; no agent is offered it.
    expect(await slotsOf(tenant.orgId)).toEqual({ running: 2, limit: 2 });
    expect((await poll(tenant, c)).body).toEqual({});
    expect((await status(tenant, apps[2])).body.device).toMatchObject({ status: 'RUNNING', id: '' });
    expect((await runLog(tenant, apps[2])).body).toMatchObject({
      state: 'QUEUED',
      phase: 'queued: 2 of 2 scans running',
    });
    // An agent acknowledging it anyway (it read the queue just before) is refused, and the run stays queued.
    const early = await ack(tenant, c, keysOf[2], apps[2]);
    expect(early.status).toBe(409);
    expect(early.body.message).toMatch(/runs 2 hosted scans, its limit \(2\).*waits in the queue/);
    expect((await getRun(apps[2], true))!.state).toBe('QUEUED');

    // A run that ends frees its slot: the queued one starts, with a deadline of its own from then.
    expect((await end(tenant, apps[0], keysOf[0], a)).body.device.status).toBe('HOSTED_SCANNER_DISCONNECTED');
    expect(await slotsOf(tenant.orgId)).toEqual({ running: 1, limit: 2 });
    const offeredAt = Date.now();
    const next = (await poll(tenant, c)).body.command;
    expect(next).toMatchObject({ command: 'SCAN_START', scanKey: keysOf[2] });
    const queuedAt = (await getRun(apps[2], true))!.deadlineAt;
    expect(Number(next.deadline)).toBeGreaterThanOrEqual(offeredAt + config.perchMaxScanSeconds * 1000);
    expect((await ack(tenant, c, next.commandId, apps[2])).status).toBe(200);
    // The scan's own deadline runs from its acknowledgement, at or after the one the agent was given.
    const taken = (await getRun(apps[2], true))!.deadlineAt;
    expect(taken).toBeGreaterThan(queuedAt);
    expect(taken).toBeGreaterThanOrEqual(Number(next.deadline));
    expect(await slotsOf(tenant.orgId)).toEqual({ running: 2, limit: 2 });

    // A stop of a queued run removes it from the queue; its slot count is untouched.
    const queued = (await start(tenant, apps[3])).body.scanKey;
    expect((await api('POST', `/api/v1/app/${apps[3]}/perch/stop`, { token: tenant.token, body: {} })).status).toBe(
      200,
    );
    expect((await getRun(apps[3], true))!).toMatchObject({ scanKey: queued, state: 'STOPPED' });
    expect(await slotsOf(tenant.orgId)).toEqual({ running: 2, limit: 2 });
    expect((await poll(tenant, a)).body).toEqual({});

    // A stop of a running run frees its slot.
    expect((await api('POST', `/api/v1/app/${apps[2]}/perch/stop`, { token: tenant.token, body: {} })).status).toBe(
      200,
    );
    expect(await slotsOf(tenant.orgId)).toEqual({ running: 1, limit: 2 });

    // An agent gone silent (b stops polling) frees its slot when an agent next looks for work at the limit.
    const refill = (await start(tenant, apps[0])).body.scanKey;
    expect((await ack(tenant, a, (await poll(tenant, a)).body.command.commandId, apps[0])).status).toBe(200);
    expect(await slotsOf(tenant.orgId)).toEqual({ running: 2, limit: 2 });
    const waiting = (await start(tenant, apps[3])).body.scanKey;
    expect(refill).not.toBe(waiting);
    let offered: any;
    // PERCH_OFFLINE_AFTER_SECONDS is 10 in the test stack (test/integration/global-setup.ts); c keeps polling.
    for (let i = 0; i < 60 && !offered; i++) {
      offered = (await poll(tenant, c, 1)).body.command;
      await poll(tenant, a, 0, { applicationId: apps[0], scanKey: refill });
    }
    expect(offered).toMatchObject({ command: 'SCAN_START', scanKey: waiting });
    expect((await status(tenant, apps[1])).body.device).toMatchObject({
      status: 'HOSTED_SCANNER_ERRORED',
      command: { errors: [{ errorType: 'DEVICE', message: expect.stringMatching(/b stopped sending heartbeats/) }] },
    });
    expect(await slotsOf(tenant.orgId)).toEqual({ running: 1, limit: 2 });
  });

  it('lets exactly one of two agents racing for the last slot take a run', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    await setScanConcurrency(tenant.orgId, '1');
    const apps = [await cloudApp(tenant), await cloudApp(tenant)];
    const scanKeys = [(await start(tenant, apps[0])).body.scanKey, (await start(tenant, apps[1])).body.scanKey];
    const devices = [await register(tenant, 'x'), await register(tenant, 'y')];
    const answers = await Promise.all(devices.map((device, i) => ack(tenant, device, scanKeys[i], apps[i])));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(await slotsOf(tenant.orgId)).toEqual({ running: 1, limit: 1 });
    const states = [(await getRun(apps[0], true))!.state, (await getRun(apps[1], true))!.state].sort();
    expect(states).toEqual(['QUEUED', 'RUNNING']);
    // Deleting the application whose run holds the slot gives it back.
    const holder = (await getRun(apps[0], true))!.state === 'RUNNING' ? apps[0] : apps[1];
    expect((await api('DELETE', `/api/v1/app/${holder}`, { token: tenant.token })).status).toBe(200);
    expect(await slotsOf(tenant.orgId)).toEqual({ running: 0, limit: 1 });
    // The service's default applies without an operator's limit; a bad limit changes nothing.
    const other = await createTenant();
    expect(await slotsOf(other.orgId)).toEqual({ running: 0, limit: config.perchMaxRunningScans });
    await expect(setScanConcurrency(other.orgId, '0')).rejects.toThrow(/--limit must be a whole number from 1 to 1000/);
    await expect(setScanConcurrency(crypto.randomUUID(), '3')).rejects.toThrow(/no organization/);
  });
});

describe("the agent's announcement of its scan (docs/HOSTED-SCANS.md, The agent)", { timeout: 180_000 }, () => {
  /** A target on loopback that answers every request with a small page, and counts the engine's requests. */
  async function pageSite() {
    let engineRequests = 0;
    const server = createServer((req, res) => {
      if (req.headers['x-engine']) engineRequests++;
      res.end('<html><body>ok</body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/`,
      engineRequests: () => engineRequests,
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  /** An engine that sends one GET of the target through the agent's proxy, and finds nothing. */
  const oneRequestEngine: Engine = {
    name: 'one-request',
    install: 'nothing to install',
    version: async () => 'test',
    run: (run) =>
      new Promise((resolve, reject) => {
        const proxy = new URL(run.proxyUrl!);
        const headers = { host: new URL(run.targetUrl).host, 'x-engine': '1' };
        const req = httpRequest(
          { host: proxy.hostname, port: Number(proxy.port), path: run.targetUrl, headers },
          (res) => res.resume().on('end', () => resolve([])),
        );
        req.on('error', reject);
        req.end();
      }),
  };

  /** A run of a CLOUD application of `targetUrl`, taken by a new device of the tenant: its START command. */
  async function takenRun(tenant: Tenant, targetUrl = 'http://127.0.0.1:9/') {
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant, targetUrl);
    expect((await start(tenant, appId)).status).toBe(200);
    const deviceId = await register(tenant);
    const command = (await poll(tenant, deviceId)).body.command;
    expect((await ack(tenant, deviceId, command.commandId, appId)).status).toBe(200);
    return { appId, deviceId, command, scanKey: command.scanKey as string };
  }

  const announcement = { env: 'production', config: 'app:\n  env: production\n', host: 'http://127.0.0.1:9/' };
  const announce = (
    tenant: Pick<Tenant, 'token'>,
    appId: string,
    scanKey: string,
    query: Record<string, string>,
    body: unknown = announcement,
  ) => api('POST', `/api/v1/app/${appId}/perch/runs/${scanKey}/scan`, { token: tenant.token, query, body });
  const cloudScans = async (tenant: Tenant) =>
    (await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token, query: { applicationTypes: 'CLOUD' } }))
      .body.applicationScanResults ?? [];

  it('records the scan on its run in one call, which is all the attack waits for', async () => {
    const site = await pageSite();
    try {
      const tenant = await createTenant();
      const { appId, deviceId, command, scanKey } = await takenRun(tenant, site.url);
      // The service's answers the agent had when its proxy let the engine's requests through (the log's uploads
      // go alongside, waited for by nothing).
      const client = service({ url: baseUrl(), apiKey: tenant.apiKey });
      const answered: string[] = [];
      let beforeAttack: string[] | undefined;
      const counted: Service = {
        call: async <T>(method: string, path: string, body?: unknown, options?: CallOptions) => {
          const answer = await client.call<T>(method, path, body, options);
          if (!path.includes('/log?')) answered.push(`${method} ${path}`);
          return answer;
        },
        fetch: client.fetch,
        accessToken: client.accessToken,
      };
      const result = await carryOut(command, {
        api: counted,
        deviceId,
        engines: [oneRequestEngine],
        allowPrivate: false,
        signal: new AbortController().signal,
        echo: (line) => {
          if (line.includes("the proxy lets the engine's requests through")) beforeAttack ??= [...answered];
        },
      });
      expect(result).toBe('COMPLETED');
      console.log(`service calls before the attack: ${beforeAttack!.length}\n${beforeAttack!.join('\n')}`);
      expect(beforeAttack).toEqual([
        `POST /api/v1/app/${appId}/perch/runs/${scanKey}/scan?deviceId=${deviceId}&phase=started`,
      ]);
      expect(site.engineRequests()).toBe(1);
      const run = (await getRun(appId, true))!;
      const [listed] = await cloudScans(tenant);
      expect(listed.scan).toMatchObject({ id: run.scanId, status: 'COMPLETED' });
      expect(run).toMatchObject({ state: 'COMPLETED', scanId: listed.scan.id });
    } finally {
      await site.close();
    }
  });

  it('answers 404 for a run that is not the device’s and 400 naming a bad field, writing nothing; an own run records its scan once', async () => {
    const tenant = await createTenant();
    const { appId, deviceId, scanKey } = await takenRun(tenant);
    const idle = await register(tenant, 'idle agent');
    const unknown = await announce(tenant, appId, crypto.randomUUID(), { deviceId });
    const notCarried = await announce(tenant, appId, scanKey, { deviceId: idle });
    expect([unknown.status, notCarried.status]).toEqual([404, 404]);
    expect(notCarried.body.message).toBe(
      `scan ${scanKey} is not a hosted scan this device carries in application ${appId}`,
    );
    // Another organization's member with its own agent: the application is not found.
    const other = await createTenant();
    const foreign = await announce(other, appId, scanKey, { deviceId: await register(other) });
    expect([foreign.status, foreign.body.message]).toEqual([404, `application ${appId} not found`]);
    // write:device alone does not report a scan.
    const deviceOnly = await addUserTo(tenant.orgId, ['write:device']);
    expect((await announce(deviceOnly, appId, scanKey, { deviceId })).status).toBe(401);
    const bad = [
      [{ deviceId: 'nope' }, announcement, /^deviceId: /],
      [{ deviceId, phase: 'Attack!' }, announcement, /^phase: must be lower-case words/],
      [{ deviceId, phase: '' }, announcement, /^phase: must not be empty/],
      [{ deviceId }, { ...announcement, env: '' }, /^body\.env: /],
      [{ deviceId }, { ...announcement, config: 'app: [' }, /^config: not valid YAML/],
    ] as const;
    for (const [query, body, message] of bad) {
      const refused = await announce(tenant, appId, scanKey, query, body);
      expect([refused.status, refused.body.message], JSON.stringify(query)).toEqual([
        400,
        expect.stringMatching(message),
      ]);
    }
    expect(await cloudScans(tenant)).toEqual([]);
    const untouched = (await getRun(appId, true))!;
    expect([untouched.phase, untouched.scanId]).toEqual(['claimed', undefined]);

    const recorded = await announce(tenant, appId, scanKey, { deviceId, phase: 'login' });
    expect(recorded.status, recorded.text).toBe(200);
    expect(recorded.body).toMatchObject({
      scanId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      envId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      configHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      device: { status: 'RUNNING', id: deviceId, scanId: recorded.body.scanId },
    });
    expect((await getRun(appId, true))!).toMatchObject({ phase: 'login', scanId: recorded.body.scanId });
    const [listed] = await cloudScans(tenant);
    expect(listed.scan).toMatchObject({ id: recorded.body.scanId, status: 'STARTED', env: 'production' });
    expect(await auditTypes(tenant)).toEqual(expect.arrayContaining(['SCAN_STARTED']));
    // Sent again (its answer lost): the same scan, no second one.
    const again = await announce(tenant, appId, scanKey, { deviceId });
    expect(again.body).toEqual(recorded.body);
    expect(await cloudScans(tenant)).toHaveLength(1);
  });

  it('answers a stopped run as stopped without writing a scan, and the agent stops before any attack', async () => {
    const site = await pageSite();
    try {
      const tenant = await createTenant();
      const { appId, deviceId, command, scanKey } = await takenRun(tenant, site.url);
      expect((await api('POST', `/api/v1/app/${appId}/perch/stop`, { token: tenant.token, body: {} })).status).toBe(
        200,
      );
      const answer = await announce(tenant, appId, scanKey, { deviceId, phase: 'started' });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toMatchObject({ scanId: '', device: { status: 'HOSTED_SCANNER_DISCONNECTED', scanId: '' } });
      const result = await carryOut(command, {
        api: service({ url: baseUrl(), apiKey: tenant.apiKey }),
        deviceId,
        engines: [oneRequestEngine],
        allowPrivate: false,
        signal: new AbortController().signal,
      });
      expect(result).toBe('ERROR');
      expect(site.engineRequests()).toBe(0);
      expect(await cloudScans(tenant)).toEqual([]);
      const run = (await getRun(appId, true))!;
      expect([run.state, run.scanId]).toEqual(['STOPPED', undefined]);
    } finally {
      await site.close();
    }
  });

  /** SCAN_STARTED audit entries so far (startScan writes one too). */
  const scanStartedEntries = async (tenant: Tenant) =>
    (await auditTypes(tenant)).filter((type) => type === 'SCAN_STARTED').length;

  it('notices a stop that lands while the announcement is written: no scan, the run stays STOPPED', async () => {
    const tenant = await createTenant();
    const { appId, deviceId, scanKey } = await takenRun(tenant);
    const caller = createCaller({ userId: tenant.userId, apiKeyId: apiKeyIdOf(tenant.token) }, 'write:device');
    const startsBefore = await scanStartedEntries(tenant);
    // The body is read after the run was read and before the transaction: the stop lands in between.
    const answer = await reportScanRunStarted(caller, appId, scanKey, { deviceId, phase: 'started' }, async () => {
      const stopped = await api('POST', `/api/v1/app/${appId}/perch/stop`, { token: tenant.token, body: {} });
      expect(stopped.status, stopped.text).toBe(200);
      return scanStartedBody.parse(announcement);
    });
    expect(answer).toMatchObject({
      scanId: '',
      envId: '',
      configHash: '',
      device: { status: 'HOSTED_SCANNER_DISCONNECTED' },
    });
    expect(await cloudScans(tenant)).toEqual([]);
    expect(await scanStartedEntries(tenant)).toBe(startsBefore);
    const run = (await getRun(appId, true))!;
    expect([run.state, run.scanId, run.phase]).toEqual(['STOPPED', undefined, 'stopped']);
  });

  it('makes one scan of two announcements sent at once, both answered with it', async () => {
    const tenant = await createTenant();
    const { appId, deviceId, scanKey } = await takenRun(tenant);
    const caller = createCaller({ userId: tenant.userId, apiKeyId: apiKeyIdOf(tenant.token) }, 'write:device');
    const startsBefore = await scanStartedEntries(tenant);
    // Each body is read only once both calls read the run without a scan: both go on to write one.
    let arrived = 0;
    let release!: () => void;
    const bothRead = new Promise<void>((resolve) => (release = resolve));
    const readBody = async () => {
      if (++arrived === 2) release();
      await bothRead;
      return scanStartedBody.parse(announcement);
    };
    const answers = await Promise.all(
      ['started', 'login'].map((phase) => reportScanRunStarted(caller, appId, scanKey, { deviceId, phase }, readBody)),
    );
    const scans = await cloudScans(tenant);
    expect(scans).toHaveLength(1);
    const scanId = scans[0].scan.id;
    expect(answers.map((a) => [a.scanId, a.envId, a.device.scanId])).toEqual([
      [scanId, answers[0].envId, scanId],
      [scanId, answers[0].envId, scanId],
    ]);
    expect(answers[0].envId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answers[1].configHash).toBe(answers[0].configHash);
    expect((await getRun(appId, true))!).toMatchObject({ state: 'RUNNING', scanId });
    expect(await scanStartedEntries(tenant)).toBe(startsBefore + 1);
  });

  it("never records nor answers another organization's scan as a run's scan", async () => {
    // The victim's scan, of an application of its own.
    const victim = await createTenant();
    const victimApp = await api('POST', `/api/v1/org/${victim.orgId}/app`, {
      token: victim.token,
      body: { name: 'victim', env: 'production' },
    });
    const victimScan = await api('POST', `/api/v1/app/${victimApp.body.applicationId}/scan`, {
      token: victim.token,
      body: announcement,
    });
    expect(victimScan.status, victimScan.text).toBe(200);
    const foreignScanId = victimScan.body.scanId as string;

    // A member of another organization, with write:device, on its own run.
    const tenant = await createTenant();
    const { appId, deviceId, scanKey } = await takenRun(tenant);
    const refused = await api('POST', `/api/v1/app/${appId}/perch/runs/${scanKey}`, {
      token: tenant.token,
      body: { deviceId, scanId: foreignScanId, phase: 'attack' },
    });
    expect([refused.status, refused.body.message]).toEqual([
      400,
      `scanId: ${foreignScanId} is not a scan of application ${appId}`,
    ]);
    const unknown = crypto.randomUUID();
    const refusedUnknown = await api('POST', `/api/v1/app/${appId}/perch/runs/${scanKey}`, {
      token: tenant.token,
      body: { deviceId, scanId: unknown },
    });
    expect([refusedUnknown.status, refusedUnknown.body.message]).toEqual([
      400,
      `scanId: ${unknown} is not a scan of application ${appId}`,
    ]);
    const untouched = (await getRun(appId, true))!;
    expect([untouched.state, untouched.phase, untouched.scanId]).toEqual(['RUNNING', 'claimed', undefined]);

    // A run that holds the foreign id all the same (recorded before updateScanRun checked it): the announcement
    // tells nothing of that scan.
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.perchRun(appId),
        UpdateExpression: 'SET scanId = :scanId',
        ExpressionAttributeValues: { ':scanId': foreignScanId },
      }),
    );
    const answer = await announce(tenant, appId, scanKey, { deviceId });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ scanId: foreignScanId, envId: '', configHash: '' });
    expect(await cloudScans(tenant)).toEqual([]);
  });

  it('refuses a profile run: it reports its result, not a scan', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    expect((await api('POST', `/api/v1/app/${appId}/perch/profile-scan`, { token: tenant.token })).status).toBe(200);
    const deviceId = await register(tenant);
    const command = (await poll(tenant, deviceId)).body.command;
    expect(command.command).toBe('PROFILE_START');
    expect((await ack(tenant, deviceId, command.commandId, appId)).status).toBe(200);
    const refused = await announce(tenant, appId, command.scanKey, { deviceId });
    expect([refused.status, refused.body.message]).toEqual([
      400,
      `run ${command.scanKey} is a profile scan, not a scan`,
    ]);
    expect(await cloudScans(tenant)).toEqual([]);
  });
});

describe('whose device it is (docs/HOSTED-SCANS.md, Whose device it is)', { timeout: 180_000 }, () => {
  /** A member of the tenant's organization with the agent's permissions, and read:device to list the devices. */
  async function member(tenant: Tenant): Promise<Tenant> {
    const perms = ['read:application', 'read:device', 'write:device', 'write:scan'] as const;
    return { orgId: tenant.orgId, ...(await addUserTo(tenant.orgId, [...perms])) };
  }
  const update = (who: Tenant, appId: string, scanKey: string, body: unknown) =>
    api('POST', `/api/v1/app/${appId}/perch/runs/${scanKey}`, { token: who.token, body });
  const uploadLog = (who: Tenant, appId: string, scanKey: string, deviceId: string, text: string) =>
    api('PUT', `/api/v1/app/${appId}/perch/runs/${scanKey}/log`, {
      token: who.token,
      query: { deviceId },
      rawBody: text,
      contentType: 'text/plain',
    });

  it("drives only the registering user's devices: another member seeing a device id gets 404 and changes nothing", async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    const scanKey = (await start(tenant, appId)).body.scanKey as string;
    const deviceId = await register(tenant, 'owner agent');
    expect((await ack(tenant, deviceId, (await poll(tenant, deviceId)).body.command.commandId, appId)).status).toBe(
      200,
    );
    expect((await uploadLog(tenant, appId, scanKey, deviceId, 'owner log\n')).status).toBe(200);
    const before = (await getDevice(tenant.orgId, deviceId))!;

    // Another member with write:device sees the device and its run in listDevices...
    const intruder = await member(tenant);
    const listed = await api('GET', `/api/v1/org/${tenant.orgId}/perch/devices`, { token: intruder.token });
    expect(listed.body.devices).toEqual([expect.objectContaining({ deviceId, scanKey, applicationId: appId })]);
    // ...and can drive none of it: the answers of an unknown device.
    const unknown = `device ${deviceId} not found in organization ${tenant.orgId}: register again`;
    const refused = [
      await poll(intruder, deviceId, 0, { applicationId: appId, scanKey }),
      await ack(intruder, deviceId, scanKey, appId),
      await uploadLog(intruder, appId, scanKey, deviceId, 'replaced\n'),
      await update(intruder, appId, scanKey, {
        deviceId,
        state: 'ERROR',
        error: { errorType: 'UNKNOWN', message: 'x' },
      }),
      await update(intruder, appId, scanKey, { deviceId, phase: 'attack' }),
      await api('PUT', `/api/v1/app/${appId}/perch/runs/${scanKey}/profile`, {
        token: intruder.token,
        query: { deviceId },
        body: {},
      }),
    ];
    expect(refused.map((r) => [r.status, r.body?.message])).toEqual([
      [404, unknown],
      [404, unknown],
      [404, unknown],
      [404, unknown],
      [404, unknown],
      [404, unknown],
    ]);
    const announced = await api('POST', `/api/v1/app/${appId}/perch/runs/${scanKey}/scan`, {
      token: intruder.token,
      query: { deviceId },
      body: { env: 'production', config: 'app:\n  env: production\n', host: 'http://127.0.0.1:9/' },
    });
    expect(announced.status).toBe(404);
    // Registering with its id makes a new device of the intruder's; the owner's device and run are untouched.
    const reregistered = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, {
      token: intruder.token,
      body: { name: 'hijacked', engines: ['wapiti'], deviceId },
    });
    expect(reregistered.status, reregistered.text).toBe(200);
    expect(reregistered.body.deviceId).not.toBe(deviceId);
    expect(await getDevice(tenant.orgId, deviceId)).toEqual(before);
    const untouched = (await getRun(appId, true))!;
    expect([untouched.state, untouched.deviceId, untouched.phase, untouched.scanId]).toEqual([
      'RUNNING',
      deviceId,
      'claimed',
      undefined,
    ]);
    const log = await api('GET', `/api/v1/app/${appId}/perch/log`, { token: tenant.token });
    expect(log.body.log).toBe('owner log\n');

    // The owner's agent goes on, with any of the owner's sessions.
    const ownerAgain = await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': tenant.apiKey } });
    const own = { ...tenant, token: ownerAgain.body.token as string };
    expect((await poll(own, deviceId, 0, { applicationId: appId, scanKey })).body).toEqual({});
    expect((await update(own, appId, scanKey, { deviceId, state: 'COMPLETED' })).body.device.status).toBe(
      'HOSTED_SCANNER_DISCONNECTED',
    );
  });

  it("keeps a hosted runner's device and a member's apart: each session drives only its own", async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    expect((await start(tenant, appId)).status).toBe(200);
    const run = (await getRun(appId, true))!;
    const caller = createCaller({ userId: tenant.userId, apiKeyId: apiKeyIdOf(tenant.token) }, undefined);
    const runner = { ...tenant, token: await runnerToken(caller, run) };
    const runnerDevice = await register(runner, 'hosted runner');
    const memberDevice = await register(tenant, 'own agent');
    // The starter's own session cannot drive its runner's device, nor the runner's token the starter's agent.
    expect((await poll(tenant, runnerDevice)).status).toBe(404);
    expect((await poll(runner, memberDevice)).status).toBe(404);
    const offered = (await poll(runner, runnerDevice)).body.command;
    expect(offered).toMatchObject({ command: 'SCAN_START', scanKey: run.scanKey });
    expect((await ack(tenant, runnerDevice, offered.commandId, appId)).status).toBe(404);
    expect((await ack(runner, runnerDevice, offered.commandId, appId)).status).toBe(200);
    expect((await getDevice(tenant.orgId, runnerDevice))!.launchedFor).toBe(run.scanKey);
  });

  it('offers a run of a team’s application only to agents of its members', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const teamMember = await member(tenant);
    const outsider = await member(tenant);
    const teamApp = await cloudApp(tenant);
    // Created before the team: what a team's member creates is the team's (docs/API.md, Team rules).
    const openApp = await cloudApp(tenant, 'http://127.0.0.1:10/');
    const team = await api('POST', `/api/v1/org/${tenant.orgId}/team`, {
      token: tenant.token,
      body: { name: 'restricted', userIds: [teamMember.userId, tenant.userId], applicationIds: [teamApp] },
    });
    expect(team.status, team.text).toBe(200);
    // The team's run is the oldest in the queue; the open application's comes after it.
    const teamRun = (await start(tenant, teamApp)).body.scanKey as string;
    const openRun = (await start(tenant, openApp)).body.scanKey as string;

    // The outsider's real agent runs a while: it never receives the team's run, and takes the open one.
    const outsiderEcho: string[] = [];
    const abort = new AbortController();
    const agent = await startAgent({
      url: baseUrl(),
      apiKey: outsider.apiKey,
      orgId: tenant.orgId,
      name: 'outsider agent',
      engines: [],
      signal: abort.signal,
      echo: (line) => outsiderEcho.push(line),
    });
    try {
      for (let i = 0; i < 100 && (await getRun(openApp, true))!.state === 'QUEUED'; i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      await new Promise((resolve) => setTimeout(resolve, 1500));
    } finally {
      abort.abort();
      await agent.done;
    }
    expect(outsiderEcho.join('\n')).not.toContain(teamRun);
    expect((await getRun(openApp, true))!).toMatchObject({ scanKey: openRun, deviceId: agent.deviceId });
    expect((await getRun(teamApp, true))!).toMatchObject({ scanKey: teamRun, state: 'QUEUED' });
    // Over HTTP: nothing offered to the outsider's device, and the command id learnt elsewhere takes nothing.
    const outsiderDevice = await register(outsider, 'outsider http');
    expect((await poll(outsider, outsiderDevice)).body).toEqual({});
    expect((await ack(outsider, outsiderDevice, teamRun, teamApp)).status).toBe(404);
    expect((await getRun(teamApp, true))!.state).toBe('QUEUED');

    // A team member's agent receives it.
    const teamDevice = await register(teamMember, 'team agent');
    const offered = (await poll(teamMember, teamDevice)).body.command;
    expect(offered).toMatchObject({ command: 'SCAN_START', scanKey: teamRun, applicationId: teamApp });
    expect((await ack(teamMember, teamDevice, teamRun, teamApp)).status).toBe(200);
    // listDevices shows the outsider that agent, but not the team's run it carries.
    const listed = async (who: Tenant) =>
      (await api('GET', `/api/v1/org/${tenant.orgId}/perch/devices`, { token: who.token })).body.devices.find(
        (device: { deviceId: string }) => device.deviceId === teamDevice,
      );
    expect(await listed(teamMember)).toMatchObject({ scanKey: teamRun, applicationId: teamApp });
    expect(await listed(outsider)).toMatchObject({ name: 'team agent', scanKey: '', applicationId: '' });
  });

  it("answers another organization's run, reported as running, as an unknown one: no stop command id", async () => {
    const victim = await createTenant();
    await allowScanDomain(victim.orgId, '127.0.0.1');
    const appId = await cloudApp(victim);
    const scanKey = (await start(victim, appId)).body.scanKey as string;
    const victimDevice = await register(victim);
    expect(
      (await ack(victim, victimDevice, (await poll(victim, victimDevice)).body.command.commandId, appId)).status,
    ).toBe(200);
    expect((await api('POST', `/api/v1/app/${appId}/perch/stop`, { token: victim.token, body: {} })).status).toBe(200);
    const { stopCommandId } = (await getRun(appId, true))!;
    expect(stopCommandId).toBeTruthy();

    const other = await createTenant();
    const otherDevice = await register(other);
    const answer = (await poll(other, otherDevice, 0, { applicationId: appId, scanKey })).body.command;
    expect(answer).toMatchObject({ commandId: scanKey, command: 'SCAN_STOP', scanKey, applicationId: appId });
    expect(JSON.stringify(answer)).not.toContain(stopCommandId);
    expect((await ack(other, otherDevice, stopCommandId!, appId)).status).toBe(404);
    // The carrying device still gets its stop by its id.
    expect((await poll(victim, victimDevice, 0, { applicationId: appId, scanKey })).body.command.commandId).toBe(
      stopCommandId,
    );
  });
});

describe("the run's end in one call (docs/HOSTED-SCANS.md, The run's end)", { timeout: 180_000 }, () => {
  async function announcedRun(tenant: Tenant) {
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant);
    expect((await start(tenant, appId)).status).toBe(200);
    const deviceId = await register(tenant);
    const { scanKey, commandId } = (await poll(tenant, deviceId)).body.command;
    expect((await ack(tenant, deviceId, commandId, appId)).status).toBe(200);
    const announced = await api('POST', `/api/v1/app/${appId}/perch/runs/${scanKey}/scan`, {
      token: tenant.token,
      query: { deviceId },
      body: { env: 'production', config: 'app:\n  env: production\n', host: 'http://127.0.0.1:9/' },
    });
    expect(announced.status, announced.text).toBe(200);
    return { appId, deviceId, scanKey: scanKey as string, scanId: announced.body.scanId as string };
  }
  const end = (tenant: Pick<Tenant, 'token'>, appId: string, scanKey: string, deviceId: string, body: unknown) =>
    api('POST', `/api/v1/app/${appId}/perch/runs/${scanKey}/end`, { token: tenant.token, query: { deviceId }, body });
  const readLog = async (tenant: Tenant, appId: string) =>
    (await api('GET', `/api/v1/app/${appId}/perch/log`, { token: tenant.token })).body;
  const scanStatus = async (tenant: Tenant, scanId: string) =>
    (
      await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token, query: { applicationTypes: 'CLOUD' } })
    ).body.applicationScanResults.find((result: { scan: { id: string } }) => result.scan.id === scanId)?.scan.status;

  const coverage = {
    pages: 7,
    forms: 2,
    requests: 120,
    authenticatedRequests: 120,
    relogins: 0,
    modules: [{ name: 'sql', requests: 40, findings: 1, cutAtTimeLimit: false }],
    durationSeconds: 30,
    deadlineSeconds: 3600,
    verdict: 'COMPLETE',
    reasons: [],
  };

  it('completes the scan, stores the log and ends the run together; sent again it ends nothing twice', async () => {
    const tenant = await createTenant();
    const { appId, deviceId, scanKey, scanId } = await announcedRun(tenant);
    const none = await api('GET', `/api/v1/scan/${scanId}/coverage`, { token: tenant.token });
    expect([none.status, none.body.message]).toEqual([404, expect.stringMatching(/has no coverage record/)]);
    const ended = await end(tenant, appId, scanKey, deviceId, {
      state: 'COMPLETED',
      log: 'the whole log\n',
      coverage,
    });
    expect(ended.status, ended.text).toBe(200);
    // The coverage record, stored with the scan's completion; the scan's urlCount is its pages.
    const stored = await api('GET', `/api/v1/scan/${scanId}/coverage`, { token: tenant.token });
    expect([stored.status, stored.body]).toEqual([200, { scanId, ...coverage }]);
    const listed = await api('GET', `/api/v1/scan/${tenant.orgId}`, {
      token: tenant.token,
      query: { applicationTypes: 'CLOUD' },
    });
    expect(listed.body.applicationScanResults[0]).toMatchObject({ scan: { id: scanId }, urlCount: 7 });
    expect(ended.body.device).toMatchObject({ status: 'HOSTED_SCANNER_DISCONNECTED', scanId });
    expect(await readLog(tenant, appId)).toMatchObject({
      state: 'COMPLETED',
      phase: 'completed',
      log: 'the whole log\n',
    });
    expect(await scanStatus(tenant, scanId)).toBe('COMPLETED');
    const run = (await getRun(appId, true))!;
    expect(run).toMatchObject({ state: 'COMPLETED', holdsSlot: true });
    expect((await slotsOf(tenant.orgId)).running).toBe(0);
    // The device is free: the run's end released it in the same transaction.
    expect((await poll(tenant, deviceId)).body).toEqual({});

    const again = await end(tenant, appId, scanKey, deviceId, { state: 'COMPLETED', log: 'the whole log\n' });
    expect([again.status, again.body.device.status]).toEqual([200, 'HOSTED_SCANNER_DISCONNECTED']);
    expect((await getRun(appId, true))!.updatedAt).toBe(run.updatedAt);
    expect((await auditTypes(tenant)).filter((type) => type === 'SCAN_COMPLETED')).toHaveLength(1);
  });

  it('ends a run in ERROR with its reason and its scan in ERROR; refuses bad input and other devices, writing nothing', async () => {
    const tenant = await createTenant();
    const { appId, deviceId, scanKey, scanId } = await announcedRun(tenant);
    const idle = await register(tenant, 'idle agent');
    const error = { errorType: 'AUTHENTICATION', message: 'testPath: 401; check the login' };
    const refused = [
      [deviceId, { state: 'ERROR', log: 'x' }, 400, 'error: required when state is ERROR'],
      [deviceId, { state: 'ENDED', log: 'x' }, 400, 'body.state: must be COMPLETED or ERROR'],
      [
        deviceId,
        { state: 'ERROR', error, log: 'x'.repeat(1024 * 1024 + 1) },
        400,
        expect.stringMatching(/log: must be at most 1048576 bytes$/),
      ],
      [
        deviceId,
        { state: 'ERROR', error, log: 'x', coverage: { ...coverage, secret: 1 } },
        400,
        expect.stringMatching(/coverage.*secret/),
      ],
      [
        deviceId,
        { state: 'ERROR', error, log: 'x', coverage: { ...coverage, verdict: 'FINE' } },
        400,
        expect.stringMatching(/coverage\.verdict: must be one of COMPLETE, PARTIAL, AUTH_DEGRADED, LOW_COVERAGE/),
      ],
      [idle, { state: 'ERROR', error, log: 'x' }, 409, `scan ${scanKey} is carried by another device`],
    ] as const;
    for (const [device, body, code, message] of refused) {
      const answer = await end(tenant, appId, scanKey, device, body);
      expect([answer.status, answer.body.message], JSON.stringify(body).slice(0, 80)).toEqual([code, message]);
    }
    // write:device alone does not complete the run's scan: the device's own user, with a key narrowed to it...
    const created = await api('POST', '/api/v1/user/keys', {
      token: tenant.token,
      body: { name: 'device only', permissions: ['write:device'] },
    });
    expect(created.status, created.text).toBe(200);
    const narrowedLogin = await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': created.body.apiKey } });
    const deviceOnly = { ...tenant, token: narrowedLogin.body.token as string };
    expect((await end(deviceOnly, appId, scanKey, deviceId, { state: 'ERROR', error, log: 'x' })).status).toBe(401);
    // ...and another member with write:device drives no device of another user (Whose device it is): as unknown.
    const otherMember = await addUserTo(tenant.orgId, ['write:device', 'write:scan']);
    expect((await end(otherMember, appId, scanKey, deviceId, { state: 'ERROR', error, log: 'x' })).status).toBe(404);
    expect((await getRun(appId, true))!.state).toBe('RUNNING');
    expect(await scanStatus(tenant, scanId)).toBe('STARTED');
    expect((await readLog(tenant, appId)).log).toBe('');

    const ended = await end(tenant, appId, scanKey, deviceId, {
      state: 'ERROR',
      error,
      log: 'ERROR (AUTHENTICATION)\n',
    });
    expect([ended.status, ended.body.device.status], ended.text).toEqual([200, 'HOSTED_SCANNER_ERRORED']);
    expect(await readLog(tenant, appId)).toMatchObject({
      state: 'ERROR',
      errors: [error],
      log: 'ERROR (AUTHENTICATION)\n',
    });
    expect(await scanStatus(tenant, scanId)).toBe('ERROR');
  });

  it('stores the log of a run stopped meanwhile and answers it stopped; a run without a scan just ends', async () => {
    const tenant = await createTenant();
    const { appId, deviceId, scanKey } = await announcedRun(tenant);
    expect((await api('POST', `/api/v1/app/${appId}/perch/stop`, { token: tenant.token, body: {} })).status).toBe(200);
    const stopped = await end(tenant, appId, scanKey, deviceId, { state: 'COMPLETED', log: 'stopped\n' });
    expect([stopped.status, stopped.body.device.status]).toEqual([200, 'HOSTED_SCANNER_DISCONNECTED']);
    expect(await readLog(tenant, appId)).toMatchObject({ state: 'STOPPED', log: 'stopped\n' });

    const appId2 = await cloudApp(tenant);
    expect((await start(tenant, appId2)).status).toBe(200);
    const command = (await poll(tenant, deviceId)).body.command;
    expect((await ack(tenant, deviceId, command.commandId, appId2)).status).toBe(200);
    const error = { errorType: 'PROVISIONING', message: 'no scan engine is installed' };
    const ended = await end(tenant, appId2, command.scanKey, deviceId, { state: 'ERROR', error, log: 'none\n' });
    expect([ended.status, ended.body.device.status]).toEqual([200, 'HOSTED_SCANNER_ERRORED']);
    expect(await readLog(tenant, appId2)).toMatchObject({ state: 'ERROR', phase: 'error', log: 'none\n' });
  });
});
