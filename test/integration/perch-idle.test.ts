import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from 'aws-lambda';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { lambdaContext, matchRoute } from '../../scripts/local/server.ts';
import { apiGatewayEvent } from '../../scripts/local/api-gateway-event.ts';
import { scopeObservers, type RequestScope } from '../../shared/context/request-scope.ts';
import { config } from '../../shared/config.ts';
import { handlerFile } from '../../shared/http/route.ts';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { getDevice, IDLE_HEARTBEAT_MS } from '../../shared/perch/repository.ts';
import { heartbeatWriteAfterMs } from '../../shared/perch/agents.ts';
import type { LambdaEvent, LambdaResult } from '../../shared/http/types.ts';
import { createTenant, type Tenant } from './fixtures.ts';

// An idle agent's cost (docs/HOSTED-SCANS.md, Idle agents): its poll reads the queue only when the queue's version
// moved since the device last found nothing there, and writes its heartbeat only once the stored one is old enough.
// The handlers run in this process, as the local server runs them, so each request's DynamoDB calls are counted by
// its scope (as the bench counts them) and a start wakes a waiting poll as it does locally.
type Handler = (event: LambdaEvent, context: Context) => Promise<LambdaResult>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const scopes: RequestScope[] = [];
scopeObservers.push((scope) => scopes.push(scope));
afterEach(() => void (scopes.length = 0));

async function call(method: string, target: string, token: string, body?: object) {
  const route = matchRoute(method, target.split('?')[0])!;
  const handler = ((await import(`../../functions/${handlerFile(route)}.ts`)) as { handler: Handler }).handler;
  const event = apiGatewayEvent(
    {
      method,
      target,
      headers: [
        ['authorization', `Bearer ${token}`],
        ...(body ? [['content-type', 'application/json'] as [string, string]] : []),
      ],
      body: Buffer.from(body ? JSON.stringify(body) : ''),
      sourceIp: '198.51.100.18',
    },
    route,
  );
  const result = await handler(event, lambdaContext(route));
  const scope = scopes.at(-1)!;
  return {
    status: result.statusCode,
    body: result.body ? JSON.parse(result.body) : undefined,
    calls: scope.dynamodbCalls,
    roundTrips: scope.dynamodbRoundTrips,
    writeUnits: scope.writeUnits ?? 0,
  };
}

describe('an idle agent (docs/HOSTED-SCANS.md, Idle agents)', { timeout: 60_000 }, () => {
  let tenant: Tenant;
  let appId: string;
  let deviceId: string;
  const offlineAfter = config.perchOfflineAfterSeconds;
  const memorySeconds = config.perchPollMemorySeconds;
  const poll = (waitSeconds = 0) =>
    call('POST', `/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}/poll`, tenant.token, { waitSeconds });

  beforeAll(async () => {
    // The service's default offline window (the test stack's is 10 s): a heartbeat is then written every 30 s.
    config.perchOfflineAfterSeconds = 60;
    tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const app = await call('POST', `/api/v1/org/${tenant.orgId}/app`, tenant.token, {
      name: 'idle agent',
      env: 'production',
      applicationType: 'CLOUD',
      cloudScanTargetURL: 'http://127.0.0.1:9/',
    });
    expect(app.status).toBe(200);
    appId = app.body.applicationId;
    const device = await call('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, tenant.token, { name: 'idle' });
    expect(device.status).toBe(200);
    deviceId = device.body.deviceId;
  });
  afterAll(() => void (config.perchOfflineAfterSeconds = offlineAfter));

  it('polls without reading the queue while its version stays, nor writing a fresh heartbeat', async () => {
    expect(heartbeatWriteAfterMs()).toBe(30_000); // a carrying device's
    expect((await poll()).body).toEqual({}); // the queue read once: nothing for this device
    const heardAt = (await getDevice(tenant.orgId, deviceId))!.lastHeartbeatAt;
    const quick = await poll();
    expect(quick.body).toEqual({});
    // The rate limit's update and one strongly consistent read of the queue's version: the organization, the
    // membership and the device are remembered by this process (PERCH_POLL_MEMORY_SECONDS), the queue not read.
    expect(quick).toMatchObject({ calls: 2, roundTrips: 1, writeUnits: 1 });
    // A waiting poll makes no call while nothing changes.
    const waited = await poll(2);
    expect(waited.body).toEqual({});
    expect(waited).toMatchObject({ calls: 2, roundTrips: 1, writeUnits: 1 });
    expect((await getDevice(tenant.orgId, deviceId))!.lastHeartbeatAt).toBe(heardAt);

    // Once the memory is older than its bound, the poll reads them again, still in one BatchGetItem.
    config.perchPollMemorySeconds = 1;
    try {
      await sleep(1100);
      expect(await poll()).toMatchObject({ body: {}, calls: 2, roundTrips: 1, writeUnits: 1 });
      // Once the stored heartbeat is an idle device's interval old (5 min), the poll writes it, in the same round trip.
      await db.send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: keys.perchDevice(tenant.orgId, deviceId),
          UpdateExpression: 'SET lastHeartbeatAt = :then',
          ExpressionAttributeValues: { ':then': Date.now() - IDLE_HEARTBEAT_MS - 1000 },
        }),
      );
      await sleep(1100);
      const due = await poll();
      expect(due).toMatchObject({ calls: 3, writeUnits: 2 });
      expect((await getDevice(tenant.orgId, deviceId))!.lastHeartbeatAt).toBeGreaterThan(Date.now() - 5_000);
    } finally {
      config.perchPollMemorySeconds = memorySeconds;
    }
  });

  it('refuses a revoked key and a deleted device once the memory is older than its bound, at once for other operations', async () => {
    const member = await createTenant();
    const device = await call('POST', `/api/v1/org/${member.orgId}/perch/devices`, member.token, { name: 'bound' });
    const memberPoll = (id = device.body.deviceId) =>
      call('POST', `/api/v1/org/${member.orgId}/perch/devices/${id}/poll`, member.token, { waitSeconds: 0 });
    config.perchPollMemorySeconds = 2;
    try {
      expect((await memberPoll()).status).toBe(200);
      const [{ id: keyId }] = (await call('GET', '/api/v1/user/keys', member.token)).body.keys;
      expect((await call('DELETE', `/api/v1/user/keys/${keyId}`, member.token)).status).toBe(200);
      // Other operations refuse the revoked key's token at once (the membership read per request).
      expect((await call('GET', `/api/v1/org/${member.orgId}/perch/devices`, member.token)).status).toBe(401);
      // Within the bound, a poll may still be answered from this process's memory ...
      const revokedAt = Date.now();
      let status = (await memberPoll()).status;
      for (; status === 200 && Date.now() - revokedAt < 5_000; status = (await memberPoll()).status) await sleep(200);
      // ... and is refused once it is older than the bound.
      expect(status).toBe(401);
      expect(Date.now() - revokedAt).toBeLessThanOrEqual(2_000 + 1_000);

      // A deleted device: 404 (register again) within the bound.
      expect((await poll()).status).toBe(200);
      await db.send(new DeleteCommand({ TableName: config.tableName, Key: keys.perchDevice(tenant.orgId, deviceId) }));
      const deletedAt = Date.now();
      let answer = (await poll()).status;
      for (; answer === 200 && Date.now() - deletedAt < 5_000; answer = (await poll()).status) await sleep(200);
      expect(answer).toBe(404);
      expect(Date.now() - deletedAt).toBeLessThanOrEqual(2_000 + 1_000);
      deviceId = (await call('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, tenant.token, { name: 'idle' })).body
        .deviceId;
    } finally {
      config.perchPollMemorySeconds = memorySeconds;
    }
  });

  it('offers a run started while it waits at once, and reads the queue again after the version moved', async () => {
    const started = Date.now();
    const waiting = poll(20);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the poll is waiting
    const start = await call('POST', `/api/v1/app/${appId}/perch/start`, tenant.token, {
      command: { command: 'START' },
      env: 'production',
    });
    expect(start.status).toBe(200);
    const answer = await waiting;
    expect(answer.body.command).toMatchObject({ command: 'SCAN_START', scanKey: start.body.scanKey });
    expect(Date.now() - started).toBeLessThan(5_000);
    // Offered, not taken: the next poll reads the queue again and offers it again.
    const again = await poll();
    expect(again.body.command).toMatchObject({ command: 'SCAN_START', scanKey: start.body.scanKey });
    expect(again.calls).toBeGreaterThan(2);
  });
});
