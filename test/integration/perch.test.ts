import { describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api, baseUrl } from './client.ts';
import { createTenant, addUserTo, type Tenant } from './fixtures.ts';
import { auditTypes } from './app-helpers.ts';
import { allowScanDomain } from '../../shared/perch/allowlist.ts';
import { verificationToken } from '../../shared/perch/verification.ts';
import { runnerTask, runnerToken } from '../../shared/perch/runner.ts';
import { getRun } from '../../shared/perch/repository.ts';
import { createCaller } from '../../shared/http/caller.ts';
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
    });
    expect(offered.body.command.config).toContain('host: http://127.0.0.1:9/');
    expect((await ack(tenant, deviceA, scanKey, appId)).body).toEqual({
      acknowledged: true,
      alreadyAcknowledged: false,
    });
    // Delivered twice: runs once.
    expect((await ack(tenant, deviceA, scanKey, appId)).body).toEqual({
      acknowledged: true,
      alreadyAcknowledged: true,
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
  /** The API key id a tenant's session started with (its token's `akid`). */
  const apiKeyIdOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).akid;

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

    // The token is worth only the agent's operations, and only until the run's deadline.
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims.scp).toEqual(['write:device', 'write:scan']);
    expect(claims.exp).toBeLessThanOrEqual(Math.floor(run.deadlineAt / 1000));
    expect(claims.exp - claims.iat).toBeGreaterThan(30 * 60);
    expect((await api('GET', `/api/v1/app/${appId}`, { token })).status).toBe(401);

    const { code, output } = await runTask(input, { HAWK_WAPITI: '/nonexistent/wapiti' });
    expect(code, output).toBe(0);
    const done = (await status(tenant, appId)).body.device;
    expect(done).toMatchObject({ status: 'HOSTED_SCANNER_ERRORED', name: `hosted runner ${run.scanKey.slice(0, 8)}` });
    expect(done.command.errors[0]).toMatchObject({
      errorType: 'PROVISIONING',
      message: expect.stringMatching(/no scan engine is installed.*apt-get install -y wapiti/),
    });
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
