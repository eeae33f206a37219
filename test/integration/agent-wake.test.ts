import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startAgent } from '@hawk-api/scanner/agent';
import { api, baseUrl } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { issueAccessToken } from '../../shared/auth/tokens.ts';
import { keys } from '../../shared/db/keys.ts';
import { db } from '../../shared/db/client.ts';
import { collect, queryItems } from '../../shared/db/query.ts';
import { config } from '../../shared/config.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getRun } from '../../shared/perch/repository.ts';

// The wake channel (docs/HOSTED-SCANS.md, Idle agents): an idle agent with it open polls every wakePollSeconds (300)
// and at once when woken. The local server serves the channel as `npm start` does (scripts/local/wake-channel.ts),
// in the test stack's own process: a start there reaches this process's agent only through the channel.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const register = async (tenant: Tenant, name: string) => {
  const out = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, { token: tenant.token, body: { name } });
  expect(out.status, out.text).toBe(200);
  return out.body as { deviceId: string; wakeUrl: string; wakePollSeconds: number };
};

const connectionsOf = async (orgId: string) => {
  const { pk, skPrefix } = keys.perchWakeConnectionsOfOrg(orgId);
  return collect(queryItems({ partition: pk, skPrefix, consistent: true }));
};

/** Opens a WebSocket to the channel: 'open', or the status the handshake was refused with; what it is sent, and its close. */
function connect(url: string, orgId: string, deviceId: string, token?: string) {
  const socket = new WebSocket(`${url}?orgId=${orgId}&deviceId=${deviceId}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const outcome = new Promise<number | 'open'>((resolve) => {
    socket.on('open', () => resolve('open'));
    socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.on('error', () => resolve(0));
  });
  const received: string[] = [];
  socket.on('message', (data: Buffer) => received.push(data.toString('utf8')));
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  return { socket, outcome, received, closed };
}

/** A cloud application to start scans of (a start queues a run, which wakes the organization's agents). */
async function startableApp(tenant: Tenant, name: string): Promise<string> {
  await allowScanDomain(tenant.orgId, '127.0.0.1');
  const app = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
    token: tenant.token,
    body: { name, env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: 'http://127.0.0.1:9/' },
  });
  expect(app.status, app.text).toBe(200);
  return app.body.applicationId as string;
}

const start = async (tenant: Tenant, appId: string) => {
  const started = await api('POST', `/api/v1/app/${appId}/perch/start`, {
    token: tenant.token,
    body: { command: { command: 'START' }, env: 'production' },
  });
  expect(started.status, started.text).toBe(200);
};

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (let value = await read(); ; value = await read()) {
    if (done(value) || Date.now() > deadline) return value;
    await sleep(50);
  }
}

describe('the wake channel (docs/HOSTED-SCANS.md, Idle agents)', { timeout: 60_000 }, () => {
  it('wakes an idle agent connected to it when a run is queued, well before its 300 s fallback poll', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const app = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: { name: 'woken', env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: 'http://127.0.0.1:9/' },
    });
    expect(app.status, app.text).toBe(200);
    const appId = app.body.applicationId as string;
    const abort = new AbortController();
    const lines: string[] = [];
    const agent = await startAgent({
      url: baseUrl(),
      token: () => issueAccessToken(tenant.userId, 'embedded-agent'),
      orgId: tenant.orgId,
      name: 'woken agent',
      engines: [],
      signal: abort.signal,
      echo: (line) => lines.push(line),
    });
    try {
      expect(await connectionsOf(tenant.orgId)).toMatchObject([{ deviceId: agent.deviceId }]);
      await sleep(1_000); // its first poll answered nothing: it waits on the channel, for up to 300 s
      const started = await api('POST', `/api/v1/app/${appId}/perch/start`, {
        token: tenant.token,
        body: { command: { command: 'START' }, env: 'production' },
      });
      expect(started.status, started.text).toBe(200);
      const at = Date.now();
      const run = await until(
        () => getRun(appId, true),
        (r) => r?.deviceId === agent.deviceId,
        10_000,
      );
      expect(run?.deviceId, lines.join('\n')).toBe(agent.deviceId);
      expect(Date.now() - at).toBeLessThan(10_000);
    } finally {
      abort.abort();
      await agent.done;
    }
    // The agent's end closed its channel: the connection's item went with it.
    expect(
      await until(
        () => connectionsOf(tenant.orgId),
        (items) => items.length === 0,
      ),
    ).toEqual([]);
  });

  it("refuses a connection as the poll is refused: no valid token (401), another organization, a device the caller does not drive (404), and answers the registration's wake settings", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const device = await register(tenant, 'refused');
    expect(device).toMatchObject({ wakePollSeconds: 300 });
    expect(device.wakeUrl).toBe(`${baseUrl().replace(/^http/, 'ws')}/api/v1/perch/wake`);
    expect(await connect(device.wakeUrl, tenant.orgId, device.deviceId).outcome).toBe(401);
    expect(await connect(device.wakeUrl, tenant.orgId, device.deviceId, 'not-a-token').outcome).toBe(401);
    // Another organization's member is refused in that organization as its poll is.
    const poll = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices/${device.deviceId}/poll`, {
      token: other.token,
      body: { waitSeconds: 0 },
    });
    expect([401, 403]).toContain(poll.status);
    expect(await connect(device.wakeUrl, tenant.orgId, device.deviceId, other.token).outcome).toBe(poll.status);
    // In its own organization, with a device not its own: as an unknown device (404).
    expect(await connect(device.wakeUrl, other.orgId, device.deviceId, other.token).outcome).toBe(404);
    expect(await connect(device.wakeUrl, tenant.orgId, 'not-a-uuid', tenant.token).outcome).toBe(400);
    expect(await connectionsOf(tenant.orgId)).toEqual([]);
  });

  it('records a connection at connect (with a TTL) and removes it at disconnect', async () => {
    const tenant = await createTenant();
    const device = await register(tenant, 'disconnecting');
    const { socket, outcome } = connect(device.wakeUrl, tenant.orgId, device.deviceId, tenant.token);
    expect(await outcome).toBe('open');
    const [item] = await connectionsOf(tenant.orgId);
    expect(item).toMatchObject({ organizationId: tenant.orgId, deviceId: device.deviceId });
    expect(item.expiresAt).toBeGreaterThan(Date.now() / 1000 + 2.9 * 3600);
    // The keepalive is answered by nothing and changes nothing.
    socket.send(JSON.stringify({ action: 'ping' }));
    socket.close();
    expect(
      await until(
        () => connectionsOf(tenant.orgId),
        (items) => items.length === 0,
      ),
    ).toEqual([]);
  });

  it("keeps one connection item per device: a reconnect replaces it, and the old connection's disconnect leaves it", async () => {
    const tenant = await createTenant();
    const device = await register(tenant, 'reconnecting');
    const first = connect(device.wakeUrl, tenant.orgId, device.deviceId, tenant.token);
    expect(await first.outcome).toBe('open');
    const second = connect(device.wakeUrl, tenant.orgId, device.deviceId, tenant.token);
    expect(await second.outcome).toBe('open');
    const [newest] = await until(
      () => connectionsOf(tenant.orgId),
      (items) => items.length === 1,
    );
    expect(newest).toMatchObject({ deviceId: device.deviceId });
    first.socket.close();
    await sleep(500); // its $disconnect runs, finds its id in the index (as replaced), and deletes nothing
    expect(await connectionsOf(tenant.orgId)).toEqual([newest]);
    second.socket.close();
    expect(
      await until(
        () => connectionsOf(tenant.orgId),
        (items) => items.length === 0,
      ),
    ).toEqual([]);
  });

  it('closes a connection that sends more than a keepalive (1009), and the disconnect removes its item', async () => {
    const tenant = await createTenant();
    const device = await register(tenant, 'flooding');
    const { socket, outcome } = connect(device.wakeUrl, tenant.orgId, device.deviceId, tenant.token);
    expect(await outcome).toBe('open');
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    socket.send('x'.repeat(4096));
    expect(await closed).toBe(1009);
    expect(
      await until(
        () => connectionsOf(tenant.orgId),
        (items) => items.length === 0,
      ),
    ).toEqual([]);
  });

  it("closes, instead of waking, a connection whose session is no longer let in: a removed member's, one recorded without its session", async () => {
    const tenant = await createTenant();
    const member = { orgId: tenant.orgId, ...(await addUserTo(tenant.orgId)) };
    const appId = await startableApp(tenant, 'watched');
    const owners = await register(tenant, 'owner agent');
    const members = await register(member, 'member agent');
    const ownerSocket = connect(owners.wakeUrl, tenant.orgId, owners.deviceId, tenant.token);
    const memberSocket = connect(members.wakeUrl, tenant.orgId, members.deviceId, member.token);
    expect([await ownerSocket.outcome, await memberSocket.outcome]).toEqual(['open', 'open']);
    // While both are members, a start wakes both.
    await start(tenant, appId);
    await until(
      async () => [ownerSocket.received.length, memberSocket.received.length],
      ([a, b]) => a > 0 && b > 0,
    );
    expect([ownerSocket.received, memberSocket.received]).toEqual([['{"type":"wake"}'], ['{"type":"wake"}']]);
    const removed = await api('DELETE', `/api/v1/org/${tenant.orgId}/members/${member.userId}`, {
      token: tenant.token,
    });
    expect(removed.status, removed.text).toBe(200);
    // The next wake reaches the owner's agent, and closes the removed member's connection without a word.
    const stop = await api('POST', `/api/v1/app/${appId}/perch/stop`, {
      token: tenant.token,
      body: { command: { command: 'STOP' }, env: 'production' },
    });
    expect(stop.status, stop.text).toBe(200);
    expect(await memberSocket.closed).toBe(1000);
    await until(
      async () => ownerSocket.received.length,
      (n) => n > 1,
    );
    expect(memberSocket.received).toEqual(['{"type":"wake"}']);
    expect((await connectionsOf(tenant.orgId)).map((item) => item.deviceId)).toEqual([owners.deviceId]);
    // A connection recorded without the session it was opened with (before sessions were kept) is closed too.
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.perchWakeConnection(tenant.orgId, owners.deviceId),
        UpdateExpression: 'REMOVE #session',
        ExpressionAttributeNames: { '#session': 'session' },
      }),
    );
    const woken = ownerSocket.received.length;
    await start(tenant, appId);
    expect(await ownerSocket.closed).toBe(1000);
    expect(ownerSocket.received.length).toBe(woken);
    expect(
      await until(
        () => connectionsOf(tenant.orgId),
        (items) => items.length === 0,
      ),
    ).toEqual([]);
  });
});
