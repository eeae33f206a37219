import { OWN_TABLE } from './own-table.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Server } from 'node:http';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { api, useServer } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { newTeam, putTeam, readTeam } from './team-helpers.ts';
import { alert, completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { startLocalServer } from '../../scripts/local/server.ts';
import { createTableInput } from '../../scripts/local/provision.ts';
import { freePort } from '../../scripts/local/ports.ts';
import { config } from '../../shared/config.ts';
import { s3 } from '../../shared/storage/s3.ts';
import { mainTable } from '../../shared/db/tables.ts';

// includeAppHealthStats of List Environments V2 without a filter is read from the health aggregates
// (shared/applications/health.ts); here it must equal the figures computed from the full environment list, after a
// history spread over weeks (scans completed, errored and deleted, triage, environments and applications deleted,
// team moves, scans on both sides of the 7- and 30-day boundaries), for every scope. The server runs in this process
// on a table of its own (own-table.ts), so its clock is this file's: Date is faked and set to each moment.

const DAY = 86_400_000;
const client = new DynamoDBClient({
  region: config.region,
  endpoint: config.dynamodbEndpoint,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
let server: Server;
const T0 = Date.now();
/**
 * Moves this process's clock (the server's) to `ms`. The S3 client signs with the real time (the local S3 checks the
 * request time against its own clock), as a client whose clock is off by the shift would after its skew correction.
 */
async function at(ms: number) {
  vi.setSystemTime(ms);
  (await s3()).config.systemClockOffset = vi.getRealSystemTime() - ms;
}

interface EnvView {
  applicationId: string;
  lastScanStatus: string;
  lastScanTimestamp: string;
  lastScanTotalUntriaged: number;
  lastScanHighUntriaged: number;
  lastScanMediumUntriaged: number;
  lastScanLowUntriaged: number;
}

/** Every environment the caller's list shows with `query` (all pages, no health statistics). */
async function allEnvironments(token: string, orgId: string, query: Record<string, string>): Promise<EnvView[]> {
  const all: EnvView[] = [];
  for (let pageToken = 0; ; pageToken++) {
    const out = await api('GET', `/api/v2/org/${orgId}/envs`, {
      token,
      query: { ...query, pageSize: 1000, pageToken },
    });
    expect(out.status, out.text).toBe(200);
    all.push(...out.body.environments);
    if (!out.body.hasNext) return all;
  }
}

/** The statistics as defined over the listed environments (the reference the aggregates must equal). */
function expectedStats(envs: EnvView[], now: number) {
  const findingsHealth = { high: 0, medium: 0, low: 0, total: 0 };
  const newest = new Map<string, number>();
  let failed = 0;
  for (const env of envs) {
    findingsHealth.high += env.lastScanHighUntriaged;
    findingsHealth.medium += env.lastScanMediumUntriaged;
    findingsHealth.low += env.lastScanLowUntriaged;
    findingsHealth.total += env.lastScanTotalUntriaged;
    if (env.lastScanStatus === 'ERROR') failed++;
    newest.set(env.applicationId, Math.max(newest.get(env.applicationId) ?? 0, Number(env.lastScanTimestamp)));
  }
  const ages = [...newest.values()].map((t) => (t ? now - t : Infinity));
  return {
    findingsHealth,
    scanFrequencyHealth: {
      totalApps: ages.length,
      appsScannedWithinSevenDays: ages.filter((a) => a <= 7 * DAY).length,
      appsScannedWithinThirtyDays: ages.filter((a) => a <= 30 * DAY).length,
      appsScannedBeyondThirtyDays: ages.filter((a) => a > 30 * DAY && a !== Infinity).length,
      appsNeverScanned: ages.filter((a) => a === Infinity).length,
      failedScansCount: failed,
    },
  };
}

/** The health statistics the list answers (the aggregates), for the scope `query` selects. */
async function served(token: string, orgId: string, query: Record<string, string>) {
  const out = await api('GET', `/api/v2/org/${orgId}/envs`, {
    token,
    query: { ...query, includeAppHealthStats: 'true', pageSize: 2 },
  });
  expect(out.status, out.text).toBe(200);
  return { findingsHealth: out.body.findingsHealth, scanFrequencyHealth: out.body.scanFrequencyHealth };
}

let owner: Tenant;
let member: Tenant;
let loner: Tenant;
let teamId: string;

/** Logs in again (a token lives 30 minutes: later moments need a new one). */
async function login(user: Tenant): Promise<string> {
  const out = await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': user.apiKey } });
  expect(out.status, out.text).toBe(200);
  return out.body.token;
}

/** At `now`: for every scope, the served statistics equal those of the full list (and some are not trivial). */
async function compareAll(now: number) {
  await at(now);
  const scopes: [Tenant, Record<string, string>][] = [
    [owner, {}],
    [owner, { applicationTypes: 'STANDARD,CLOUD' }],
    [owner, { applicationTypes: 'CLOUD' }],
    [owner, { teamIds: teamId }],
    [member, {}],
    [member, { applicationTypes: 'STANDARD,CLOUD', teamIds: teamId }],
    [loner, { applicationTypes: 'STANDARD,CLOUD' }],
  ];
  const results = [];
  for (const [user, query] of scopes) {
    const token = await login(user);
    const expected = expectedStats(await allEnvironments(token, owner.orgId, query), now);
    expect(
      await served(token, owner.orgId, query),
      `${user === owner ? 'owner' : user === member ? 'member' : 'loner'} ${JSON.stringify(query)}`,
    ).toEqual(expected);
    results.push(expected);
  }
  return results;
}

const hashesOf = async (token: string, scanId: string, pluginId: string): Promise<string[]> => {
  const out = await api('GET', `/api/v1/scan/${scanId}/alert/${pluginId}`, { token, query: { pageSize: 100 } });
  expect(out.status).toBe(200);
  return out.body.applicationScanAlertUris.map((u: { findingHash: string }) => u.findingHash);
};

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  await at(T0 - 60 * DAY);
  await client.send(new CreateTableCommand(createTableInput(mainTable, OWN_TABLE)));
  const port = await freePort();
  server = await startLocalServer(port);
  useServer(`http://127.0.0.1:${port}`);
  owner = await createTenant();
  member = { orgId: owner.orgId, ...(await addUserTo(owner.orgId)) };
  loner = { orgId: owner.orgId, ...(await addUserTo(owner.orgId)) };
}, 120_000);

afterAll(async () => {
  vi.useRealTimers();
  server?.close();
  await client.send(new DeleteTableCommand({ TableName: OWN_TABLE })).catch(() => undefined);
  client.destroy();
});

describe('includeAppHealthStats from the health aggregates', () => {
  it('equals the figures of the full environment list after weeks of history, for every scope and at every moment', async () => {
    const now = T0;
    /** A scan of `env` of `appId` started at `when`, with findings, ended as `status` (or left running). */
    const scan = async (
      appId: string,
      env: string,
      when: number,
      findings: ReturnType<typeof alert>[] = [],
      status?: 'COMPLETED' | 'ERROR',
    ) => {
      await at(when);
      const token = await login(owner);
      const started = await startScan(token, appId, { env });
      if (findings.length) await reportAlerts(token, started.scanId, findings);
      if (status) await completeScan(token, started.scanId, status);
      return started;
    };
    await at(now - 60 * DAY);
    let token = await login(owner);
    teamId = (await newTeam(owner.orgId, token, { name: 'Blue', userIds: [member.userId], applicationIds: [] })).id;
    const app = async (name: string, env?: string, body: Record<string, unknown> = {}) =>
      createApp({ orgId: owner.orgId, token: await login(owner) }, { name, ...(env ? { env } : {}), ...body });

    const old = await app('old', 'dev'); // scanned 45 days ago only
    const edge30 = await app('edge30', 'dev'); // on both sides of the 30-day boundary
    const edge7 = await app('edge7', 'dev'); // on both sides of the 7-day boundary
    const recent = await app('recent', 'dev');
    const never = await app('never', 'dev');
    await app('empty'); // no environment: not an application of the statistics
    const cloud = await app('cloud', 'dev', { applicationType: 'CLOUD', cloudScanTargetURL: 'https://c.example.test' });
    const doomed = await app('doomed', 'dev');
    const moved = await app('moved', 'dev');

    await scan(old, 'dev', now - 45 * DAY, [alert('1', 'High', 2), alert('2', 'Low', 1)], 'COMPLETED');
    await scan(edge30, 'dev', now - 30 * DAY - 10 * 60_000, [alert('3', 'Medium', 3)], 'ERROR');
    await scan(edge30, 'qa', now - 30 * DAY + 10 * 60_000, [], 'COMPLETED');
    await scan(edge7, 'dev', now - 7 * DAY - 5 * 60_000, [alert('4', 'High', 1)], 'COMPLETED');
    await scan(edge7, 'stage', now - 7 * DAY + 5 * 60_000 + 30_000, [], 'COMPLETED'); // younger than 7 days until now + 5.5 min
    await scan(edge7, 'qa', now - 7 * DAY + 8 * 60_000, [alert('4', 'Low', 2)], 'ERROR'); // deleted below
    await scan(moved, 'dev', now - 6 * DAY, [alert('7', 'Medium', 2)], 'COMPLETED');
    await scan(cloud, 'dev', now - 3 * DAY, [alert('5', 'Low', 4)], 'COMPLETED');
    await scan(doomed, 'dev', now - 2 * DAY, [alert('6', 'High', 5)], 'COMPLETED');
    // recent: prod scanned twice (the newer deleted: its last scan goes back), stage's only scan deleted, dev running.
    await scan(recent, 'prod', now - 5 * DAY, [alert('8', 'High', 1), alert('9', 'Medium', 2)], 'COMPLETED');
    const newer = await scan(recent, 'prod', now - 1 * DAY, [alert('8', 'High', 3)], 'COMPLETED');
    const only = await scan(recent, 'stage', now - 1 * DAY + 60_000, [alert('10', 'Low', 2)], 'COMPLETED');
    const running = await scan(recent, 'dev', now - 2 * 60_000, [alert('11', 'High', 1)]);
    await at(now - 60_000);
    token = await login(owner);
    expect((await api('DELETE', `/api/v1/scan/${newer.scanId}`, { token })).status).toBe(200);
    expect((await api('DELETE', `/api/v1/scan/${only.scanId}`, { token })).status).toBe(200);
    // Triage: two of old/dev's High findings accepted, one Low marked false positive.
    const oldEnv = (await allEnvironments(token, owner.orgId, { appIds: old })).map(
      (e) => e as EnvView & { environmentId: string; lastScanId: string },
    )[0];
    const highs = await hashesOf(token, oldEnv.lastScanId, '1');
    const lows = await hashesOf(token, oldEnv.lastScanId, '2');
    const triaged = await api(
      'POST',
      `/api/v1/org/${owner.orgId}/app/${old}/env/${oldEnv.environmentId}/findings/triage`,
      {
        token,
        body: {
          actions: [
            ...highs.map((findingHash) => ({ findingHash, status: 'RISK_ACCEPTED' })),
            { findingHash: lows[0], status: 'FALSE_POSITIVE' },
          ],
        },
      },
    );
    expect(triaged.status, triaged.text).toBe(200);
    // edge7's newest environment deleted: its newest scan goes back to stage's (read again from its environments).
    const edge7Envs = (await allEnvironments(token, owner.orgId, { appIds: edge7 })) as (EnvView & {
      environmentId: string;
      environmentName: string;
    })[];
    const qa = edge7Envs.find((e) => e.environmentName === 'qa')!;
    expect((await api('DELETE', `/api/v1/app/${edge7}/env/${qa.environmentId}`, { token })).status).toBe(200);
    // An application deleted, another moved into the team, an environment without scans added to `never`.
    expect((await api('DELETE', `/api/v1/app/${doomed}`, { token })).status).toBe(200);
    const team = await readTeam(owner.orgId, token, teamId);
    expect(
      (
        await putTeam(owner.orgId, token, teamId, {
          name: team.name,
          userIds: [member.userId],
          applicationIds: [moved],
        })
      ).status,
    ).toBe(200);
    expect((await api('POST', `/api/v1/app/${never}/env`, { token, body: { env: 'qa' } })).status).toBe(200);
    expect(running.scanId).toBeTruthy();

    const results = await compareAll(now);
    // Not trivial: the owner's default scope (STANDARD) sees findings, failures and every bucket of ages.
    expect(results[0].findingsHealth.total).toBeGreaterThan(0);
    expect(results[0].scanFrequencyHealth).toMatchObject({ failedScansCount: 1, appsNeverScanned: 1 });
    expect(results[0].scanFrequencyHealth.appsScannedWithinSevenDays).toBeGreaterThan(0);
    expect(results[0].scanFrequencyHealth.appsScannedBeyondThirtyDays).toBeGreaterThan(0);
    // The team's own scope: the moved application alone (scanned 6 days ago).
    expect(results[5].scanFrequencyHealth).toMatchObject({ totalApps: 1, appsScannedWithinSevenDays: 1 });
    // The boundaries move with the request's time: minutes later edge30 and edge7 change sides; days later, all do.
    await compareAll(now + 11 * 60_000);
    await compareAll(now + 2 * DAY);
    await compareAll(now + 40 * DAY);
  }, 120_000);

  it('stay exact under concurrent scans, completions, deletes, triage and team moves of the same applications', async () => {
    const now = T0 + 3 * DAY;
    await at(now);
    const token = await login(owner);
    const tenant = { orgId: owner.orgId, token };
    const busy = await createApp(tenant, { name: 'busy', env: 'e0' });
    const other = await createApp(tenant, { name: 'other', env: 'e0' });
    // 409: lost to concurrent writes more often than its retries allow; 404: its environment was deleted meanwhile;
    // 401: it read the application once moved into the team, and the caller's membership before it joined the team.
    const settled = (results: { status: number; text: string }[]) => {
      for (const r of results) expect([200, 401, 404, 409], r.text).toContain(r.status);
      return results.filter((r) => r.status === 200).length;
    };
    const post = (path: string, body: unknown) => api('POST', path, { token, body });
    const scanBody = (env: string) => ({
      env,
      config: 'app:\n  env: x\n',
      hawkscanVersion: '4.1.0',
      host: 'https://t.test',
      tags: [],
    });
    // Scans of new and existing environments of two applications at once (environment creations among them).
    const starts = await Promise.all(
      ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e0', 'e1'].flatMap((env) => [
        post(`/api/v1/app/${busy}/scan`, scanBody(env)),
        post(`/api/v1/app/${other}/scan`, scanBody(env)),
      ]),
    );
    expect(settled(starts)).toBeGreaterThan(4);
    const scans = starts.filter((r) => r.status === 200).map((r) => r.body as { scanId: string; envId: string });
    for (const [i, s] of scans.entries())
      await reportAlerts(token, s.scanId, [
        alert(`p${i % 3}`, (['High', 'Medium', 'Low'] as const)[i % 3], 1 + (i % 4)),
      ]);
    // Completions, errors, scan deletes, environment deletes, a team move and new scans, all at once.
    const envsOfBusy = (await allEnvironments(token, owner.orgId, { appIds: busy })) as (EnvView & {
      environmentId: string;
    })[];
    const team = await readTeam(owner.orgId, token, teamId);
    const writes = await Promise.all([
      ...scans.map((s, i) =>
        i % 5 === 4
          ? api('DELETE', `/api/v1/scan/${s.scanId}`, { token })
          : post(`/api/v1/scan/${s.scanId}/complete`, { status: i % 3 === 0 ? 'ERROR' : 'COMPLETED', urlCount: 1 }),
      ),
      api('DELETE', `/api/v1/app/${busy}/env/${envsOfBusy[1].environmentId}`, { token }),
      // The owner joins the team with the application (it keeps its access to it; its scope gains the team).
      putTeam(owner.orgId, token, teamId, {
        name: team.name,
        userIds: [member.userId, owner.userId],
        applicationIds: [...team.applications.map((a) => a.applicationId), busy],
      }),
      post(`/api/v1/app/${other}/scan`, scanBody('e6')),
      post(`/api/v1/app/${busy}/scan`, scanBody('e2')),
    ]);
    settled(writes);
    await compareAll(now);
    // And the application deleted while its scans complete.
    const late = await Promise.all(['e3', 'e4'].map((env) => post(`/api/v1/app/${other}/scan`, scanBody(env))));
    const ends = await Promise.all([
      ...late
        .filter((r) => r.status === 200)
        .map((r) => post(`/api/v1/scan/${r.body.scanId}/complete`, { status: 'ERROR', urlCount: 1 })),
      api('DELETE', `/api/v1/app/${other}`, { token }),
    ]);
    for (const r of ends) expect([200, 404, 409], r.text).toContain(r.status);
    await compareAll(now);
  }, 120_000);
});
