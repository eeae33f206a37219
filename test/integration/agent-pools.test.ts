import { describe, expect, it } from 'vitest';
import { startAgent, type RunningAgent } from '@hawk-api/scanner/agent';
import { api, baseUrl } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { newTeam } from './team-helpers.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { issueAccessToken } from '../../shared/auth/tokens.ts';
import { getRun } from '../../shared/perch/repository.ts';

// Agent pools (docs/HOSTED-SCANS.md, Agent pools): agents register with labels, a CLOUD application's hosted settings
// require labels, its runs go only to agents carrying them and wait, saying so, while none does; a team's pool is a
// label only its applications may require. Real agents of the scanner package take the runs.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function cloudApp(tenant: Tenant, name: string, teamId?: string) {
  const out = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
    token: tenant.token,
    body: {
      name,
      env: 'production',
      applicationType: 'CLOUD',
      cloudScanTargetURL: 'http://127.0.0.1:9/',
      ...(teamId ? { teamId } : {}),
    },
  });
  expect(out.status, out.text).toBe(200);
  return out.body.applicationId as string;
}

const settings = (tenant: Tenant, appId: string, body?: unknown) =>
  api(body === undefined ? 'GET' : 'PUT', `/api/v1/app/${appId}/perch/settings`, { token: tenant.token, body });
const pools = (tenant: Tenant, body?: unknown, orgId = tenant.orgId) =>
  api(body === undefined ? 'GET' : 'PUT', `/api/v1/org/${orgId}/perch/pools`, { token: tenant.token, body });
const start = (tenant: Tenant, appId: string) =>
  api('POST', `/api/v1/app/${appId}/perch/start`, {
    token: tenant.token,
    body: { command: { command: 'START' }, env: 'production' },
  });
const runLog = async (tenant: Tenant, appId: string) =>
  (await api('GET', `/api/v1/app/${appId}/perch/log`, { token: tenant.token })).body;

/** A real agent of the tenant's organization: the embedded one of `npm start` (its token, its name) unless named. */
async function agent(tenant: Tenant, options: { name?: string; labels?: string[] } = {}) {
  const abort = new AbortController();
  const lines: string[] = [];
  const running: RunningAgent = await startAgent({
    url: baseUrl(),
    ...(options.name ? { apiKey: tenant.apiKey } : { token: () => issueAccessToken(tenant.userId, 'embedded-agent') }),
    orgId: tenant.orgId,
    name: options.name ?? 'embedded agent (npm start)',
    labels: options.labels,
    engines: [],
    signal: abort.signal,
    echo: (line) => lines.push(line),
  });
  return {
    deviceId: running.deviceId,
    lines,
    stop: async () => {
      abort.abort();
      await running.done;
    },
  };
}

async function waitForRun(appId: string, until: (state: string) => boolean) {
  for (let i = 0; i < 150; i++) {
    const run = await getRun(appId, true);
    if (run && until(run.state)) return run;
    await sleep(100);
  }
  throw new Error(`the run of ${appId} did not move on`);
}

describe('agent pools', { timeout: 120_000 }, () => {
  it('hands a run requiring a label only to the agent carrying it; without one online it waits and says so', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const internalApp = await cloudApp(tenant, 'internal');
    const openApp = await cloudApp(tenant, 'open');
    const saved = await settings(tenant, internalApp, { requiredLabels: ['net=internal'] });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toEqual({ requiredLabels: ['net=internal'] });
    expect((await settings(tenant, internalApp)).body).toEqual({ requiredLabels: ['net=internal'] });

    const embedded = await agent(tenant);
    try {
      const started = await start(tenant, internalApp);
      expect(started.status, started.text).toBe(200);
      const scanKey = started.body.scanKey as string;
      // The embedded agent polls on, idle (the start woke it): the run is not its to take.
      await sleep(2000);
      expect(await getRun(internalApp, true)).toMatchObject({ state: 'QUEUED', requiredLabels: ['net=internal'] });
      expect(embedded.lines.join('\n')).not.toContain(scanKey);
      const waiting = await runLog(tenant, internalApp);
      expect(waiting).toMatchObject({ state: 'QUEUED', deviceName: '' });
      expect(waiting.phase).toBe(
        'queued: waiting for an agent with the labels net=internal (no online agent has them)',
      );
      // A run requiring nothing goes to the embedded agent meanwhile.
      expect((await start(tenant, openApp)).status).toBe(200);
      expect(await waitForRun(openApp, (state) => state !== 'QUEUED')).toMatchObject({
        deviceId: embedded.deviceId,
      });

      // The agent carrying the label takes it, though the embedded one is idle too.
      const internal = await agent(tenant, { name: 'internal agent', labels: ['region=eu', 'net=internal'] });
      try {
        const taken = await waitForRun(internalApp, (state) => state !== 'QUEUED');
        expect(taken).toMatchObject({ scanKey, deviceId: internal.deviceId, deviceName: 'internal agent' });
        expect(internal.lines.join('\n')).toMatch(/labels: net=internal, region=eu/);
      } finally {
        await internal.stop();
      }
      expect(embedded.lines.join('\n')).not.toContain(scanKey);
      const devices = (await api('GET', `/api/v1/org/${tenant.orgId}/perch/devices`, { token: tenant.token })).body
        .devices as { name: string; labels: string[] }[];
      expect(devices.map(({ name, labels }) => ({ name, labels }))).toEqual([
        { name: 'embedded agent (npm start)', labels: [] },
        { name: 'internal agent', labels: ['net=internal', 'region=eu'] },
      ]);
    } finally {
      await embedded.stop();
    }
  });

  it('refuses a START acknowledged by a device without the labels (404), and takes none for a device of another organization', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant, 'internal');
    expect((await settings(tenant, appId, { requiredLabels: ['net=internal'] })).status).toBe(200);
    const scanKey = (await start(tenant, appId)).body.scanKey as string;
    const register = async (who: Tenant, labels: string[]) => {
      const out = await api('POST', `/api/v1/org/${who.orgId}/perch/devices`, {
        token: who.token,
        body: { name: 'http agent', labels },
      });
      expect(out.status, out.text).toBe(200);
      expect(out.body.labels).toEqual(labels);
      return out.body.deviceId as string;
    };
    const plain = await register(tenant, ['net=public']);
    const poll = (who: Tenant, deviceId: string) =>
      api('POST', `/api/v1/org/${who.orgId}/perch/devices/${deviceId}/poll`, {
        token: who.token,
        body: { waitSeconds: 0 },
      });
    expect((await poll(tenant, plain)).body).toEqual({});
    const ack = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices/${plain}/commands/${scanKey}/ack`, {
      token: tenant.token,
      body: { applicationId: appId },
    });
    expect(ack.status, ack.text).toBe(404);
    // Another organization's agent carrying the label is no agent of this one.
    const foreign = await register(other, ['net=internal']);
    expect((await poll(other, foreign)).body).toEqual({});
    expect((await getRun(appId, true))!.state).toBe('QUEUED');
    expect((await runLog(tenant, appId)).phase).toMatch(/no online agent has them/);

    const labelled = await register(tenant, ['net=internal']);
    expect((await poll(tenant, labelled)).body.command).toMatchObject({ command: 'SCAN_START', scanKey });
  });

  it("gives a team a pool: only the team's applications may require its label, and a start that became foreign is refused", async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const red = await newTeam(tenant.orgId, tenant.token, { name: 'red', userIds: [tenant.userId] });
    const blue = await newTeam(tenant.orgId, tenant.token, { name: 'blue', userIds: [tenant.userId] });
    const redApp = await cloudApp(tenant, 'red app', red.id);
    const blueApp = await cloudApp(tenant, 'blue app', blue.id);
    // Required before it became red's pool.
    expect((await settings(tenant, blueApp, { requiredLabels: ['zone=dmz'] })).status).toBe(200);

    const given = await pools(tenant, {
      pools: [
        { label: 'net=internal', teamId: red.id },
        { label: 'zone=dmz', teamId: red.id },
      ],
    });
    expect(given.status, given.text).toBe(200);
    expect(given.body.pools).toEqual([
      { label: 'net=internal', teamId: red.id, teamName: 'red' },
      { label: 'zone=dmz', teamId: red.id, teamName: 'red' },
    ]);
    expect((await pools(tenant)).body).toEqual(given.body);

    const refused = await settings(tenant, blueApp, { requiredLabels: ['net=internal'] });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^requiredLabels: net=internal is the agent pool of a team/);
    expect((await settings(tenant, blueApp)).body).toEqual({ requiredLabels: ['zone=dmz'] });
    expect((await settings(tenant, redApp, { requiredLabels: ['net=internal'] })).status).toBe(200);

    const foreignStart = await start(tenant, blueApp);
    expect(foreignStart.status).toBe(400);
    expect(foreignStart.body.message).toMatch(/^requiredLabels: zone=dmz is the agent pool of a team/);
    expect(await getRun(blueApp, true)).toBeUndefined();
    expect((await start(tenant, redApp)).status).toBe(200);
    expect(await getRun(redApp, true)).toMatchObject({ state: 'QUEUED', requiredLabels: ['net=internal'] });

    const audit = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: tenant.token });
    const payloads = (audit.body.auditRecords as { userActivityType: string; payload: string }[]).map((r) => ({
      type: r.userActivityType,
      ...JSON.parse(r.payload),
    }));
    expect(payloads).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'ORG_SETTINGS_MODIFIED', setting: 'agentPools' }),
        expect.objectContaining({ type: 'APPLICATION_MODIFIED', change: 'hostedScanSettings', applicationId: redApp }),
      ]),
    );
  });

  it('answers 400 naming the field for bad bodies and changes nothing', async () => {
    const tenant = await createTenant();
    const appId = await cloudApp(tenant, 'app');
    const team = await newTeam(tenant.orgId, tenant.token, { name: 'team', userIds: [tenant.userId] });
    for (const [body, field] of [
      [{ requiredLabels: ['net=internal'], requiredLabel: ['x=y'] }, 'body.requiredLabel: unknown field'],
      [{ requiredLabels: ['net'] }, 'body.requiredLabels.0: must be a label key=value'],
      [{ requiredLabels: ['net=a', 'net=b'] }, 'body.requiredLabels: must name each key once'],
      [{}, 'requiredLabels'],
    ] as const) {
      const out = await settings(tenant, appId, body);
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toContain(field);
    }
    expect((await settings(tenant, appId)).body).toEqual({ requiredLabels: [] });

    for (const [body, field] of [
      [{ pools: [{ label: 'net=internal', teamId: team.id, team: 'x' }] }, 'body.pools.0.team: unknown field'],
      [{ pools: [{ label: 'net=internal', teamId: crypto.randomUUID() }] }, 'pools.0.teamId: no team'],
      [
        {
          pools: [
            { label: 'net=internal', teamId: team.id },
            { label: 'net=internal', teamId: team.id },
          ],
        },
        'body.pools: must name each label once',
      ],
      [{ pools: [{ label: 'net internal', teamId: team.id }] }, 'body.pools.0.label: must be a label'],
    ] as const) {
      const out = await pools(tenant, body);
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toContain(field);
    }
    expect((await pools(tenant)).body).toEqual({ pools: [] });
    const device = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, {
      token: tenant.token,
      body: { name: 'agent', labels: ['a=b=c'] },
    });
    expect(device.status).toBe(400);
    expect(device.body.message).toContain('body.labels.0: must be a label key=value');
  });

  it("keeps tenants apart: another organization's application, pools and teams are not reachable", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const appId = await cloudApp(tenant, 'app');
    expect((await settings(tenant, appId, { requiredLabels: ['net=internal'] })).status).toBe(200);
    expect((await settings(other, appId)).status).toBe(404);
    expect((await settings(other, appId, { requiredLabels: [] })).status).toBe(404);
    expect((await settings(tenant, appId)).body).toEqual({ requiredLabels: ['net=internal'] });

    const team = await newTeam(tenant.orgId, tenant.token, { name: 'team', userIds: [tenant.userId] });
    expect((await pools(tenant, { pools: [{ label: 'net=internal', teamId: team.id }] })).status).toBe(200);
    expect((await pools(other, undefined, tenant.orgId)).status).toBeGreaterThanOrEqual(400);
    expect((await pools(other, { pools: [] }, tenant.orgId)).status).toBeGreaterThanOrEqual(400);
    // A team of another organization is no team of this one.
    const theirs = await pools(other, { pools: [{ label: 'net=internal', teamId: team.id }] });
    expect(theirs.status).toBe(400);
    expect(theirs.body.message).toContain('pools.0.teamId: no team');
    expect((await pools(other)).body).toEqual({ pools: [] });
    expect((await pools(tenant)).body.pools).toEqual([{ label: 'net=internal', teamId: team.id, teamName: 'team' }]);
  });
});
