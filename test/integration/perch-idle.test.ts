import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from 'aws-lambda';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { lambdaContext, matchRoute } from '../../scripts/local/server.ts';
import { apiGatewayEvent } from '../../scripts/local/api-gateway-event.ts';
import { scopeObservers, type RequestScope } from '../../shared/context/request-scope.ts';
import { config } from '../../shared/config.ts';
import { handlerFile } from '../../shared/routes.ts';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { getDevice } from '../../shared/perch/repository.ts';
import { heartbeatWriteAfterMs } from '../../shared/perch/agents.ts';
import type { LambdaEvent, LambdaResult } from '../../shared/http/types.ts';
import { createTenant, type Tenant } from './fixtures.ts';

// An idle agent's cost (docs/HOSTED-SCANS.md, Idle agents): its poll reads the queue only when the queue's version
// moved since the device last found nothing there, and writes its heartbeat only once the stored one is old enough.
// The handlers run in this process, as the local server runs them, so each request's DynamoDB calls are counted by
// its scope (as the bench counts them) and a start wakes a waiting poll as it does locally.
type Handler = (event: LambdaEvent, context: Context) => Promise<LambdaResult>;

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
    expect(heartbeatWriteAfterMs()).toBe(30_000);
    expect((await poll()).body).toEqual({}); // the queue read once: nothing for this device
    const heardAt = (await getDevice(tenant.orgId, deviceId))!.lastHeartbeatAt;
    const quick = await poll();
    expect(quick.body).toEqual({});
    // The rate limit's update, one BatchGetItem (organization, membership, device) and the queue's version: no queue.
    expect(quick).toMatchObject({ calls: 3, roundTrips: 1, writeUnits: 1 });
    // A waiting poll makes no call while nothing changes.
    const waited = await poll(2);
    expect(waited.body).toEqual({});
    expect(waited).toMatchObject({ calls: 3, roundTrips: 1, writeUnits: 1 });
    expect((await getDevice(tenant.orgId, deviceId))!.lastHeartbeatAt).toBe(heardAt);

    // Once the stored heartbeat is old enough, the poll writes it.
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.perchDevice(tenant.orgId, deviceId),
        UpdateExpression: 'SET lastHeartbeatAt = :then',
        ExpressionAttributeValues: { ':then': Date.now() - 31_000 },
      }),
    );
    const due = await poll();
    expect(due).toMatchObject({ calls: 4, writeUnits: 2 });
    expect((await getDevice(tenant.orgId, deviceId))!.lastHeartbeatAt).toBeGreaterThan(Date.now() - 5_000);
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
    expect(again.calls).toBeGreaterThan(3);
  });
});
