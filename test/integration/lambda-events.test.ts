import { describe, expect, inject, it } from 'vitest';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { SERVICE_DESCRIPTION } from '../../shared/service/pages.ts';
import protobuf from 'protobufjs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { readCloudAssembly } from '../synth-setup.ts';
import { lambdaContext, matchRoute } from '../../scripts/local/server.ts';
import { LAMBDA_EVENT_LIMIT_BYTES, apiGatewayEvent, eventBytes } from '../../scripts/local/api-gateway-event.ts';
import { routes } from '../../shared/routes.ts';
import { type Route } from '../../shared/http/route.ts';
import type { LambdaEvent, LambdaResult } from '../../shared/http/types.ts';
import { MAX_DESCRIPTION_BYTES } from '../../shared/hosted-assets/inputs.ts';
import descriptor from '../../shared/proto/descriptor.json' with { type: 'json' };
import { createTenant } from './fixtures.ts';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import {
  OVERDUE_CHECK_DESCRIPTION,
  RISK_EXPIRY_DESCRIPTION,
  RUNNER_STOPPED_DESCRIPTION,
  SCHEDULED_SCAN_DESCRIPTION,
  STOPPED_WRITES_SWEEP_DESCRIPTION,
  WEBHOOK_DELIVERY_DESCRIPTION,
  WEBHOOK_RELAY_DESCRIPTION,
} from '../../infra/stack.ts';
import { pendingFindingsStart } from '../../shared/results/finding-repository.ts';
import { deliveryCreation, getDelivery } from '../../shared/webhooks/deliveries.ts';
import { type OutboxEvent } from '../../shared/webhooks/model.ts';
import { outboxItem } from '../../shared/db/outbox.ts';
import { deliveryOf } from '../../shared/delivery/relay.ts';
import { getWebhook } from '../../shared/webhooks/repository.ts';
import type { DeliveryMessage } from '../../shared/delivery/model.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { getRun } from '../../shared/perch/repository.ts';
import { runnerTask } from '../../shared/perch/runner.ts';
import { getSchedule, putSchedule } from '../../shared/schedules/repository.ts';
import { type ScheduleRecord } from '../../shared/schedules/model.ts';
import { RUNNER_TASKS, STOPS, runnerAt, taskStateChange } from './ecs-events.ts';

type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;
type ScheduledHandler = (event: unknown, context: Context) => Promise<{ relayed: number }>;

// The synthesized bundles run as Lambda runs them: each route's handler is required from the asset CDK staged
// (the minified CommonJS index.js that would be uploaded, loaded with Node's own require as the runtime loads it;
// `@aws-sdk/*` resolved from node_modules as the runtime provides it) and driven with API Gateway HTTP API payload-2.0 events (scripts/local/api-gateway-event.ts) against the
// local engines. The route keys and parameter names are the ones the synthesized template gives API Gateway.

type Handler = (event: LambdaEvent, context: Context) => Promise<LambdaResult>;
const require = createRequire(import.meta.url);
const { template, bundles } = readCloudAssembly(inject('cloudAssembly'));
const resources = Object.entries(template.Resources);
const templateRouteKeys = new Set(
  resources.filter(([, r]) => r.Type === 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string),
);
const bundleOfRoute = new Map<Route, string>();
for (const [id, r] of resources) {
  if (r.Type !== 'AWS::Lambda::Function') continue;
  const route = routes.find((candidate) => r.Properties.Description === `${candidate.method} ${candidate.path}`);
  if (route) bundleOfRoute.set(route, bundles.get(id)!);
}
const loaded = new Map<Route, Promise<Handler>>();
const handlerOf = (route: Route) => {
  if (!loaded.has(route))
    loaded.set(route, Promise.resolve((require(bundleOfRoute.get(route)!) as { handler: Handler }).handler));
  return loaded.get(route)!;
};

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  json: () => any;
  event: LambdaEvent;
}

/** One HTTP request through API Gateway's event into the deployed bundle of the route it matches. */
async function invoke(
  method: string,
  target: string,
  options: { headers?: [string, string][]; body?: string | Buffer } = {},
): Promise<Answer> {
  const route = matchRoute(method, target.split('?')[0]);
  if (!route) throw new Error(`no route for ${method} ${target}`);
  const body = Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body ?? '');
  const event = apiGatewayEvent(
    {
      method,
      target,
      headers: [['host', 'api.example.test'], ...(options.headers ?? [])],
      body,
      sourceIp: '203.0.113.7',
    },
    route,
  );
  expect(templateRouteKeys.has(event.routeKey), `route key ${event.routeKey} is in the template`).toBe(true);
  expect(eventBytes(event)).toBeLessThanOrEqual(LAMBDA_EVENT_LIMIT_BYTES);
  const result = await (await handlerOf(route))(event, lambdaContext(route));
  const responseBody = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  return {
    status: result.statusCode ?? 200,
    headers: (result.headers ?? {}) as Record<string, string>,
    body: responseBody,
    json: () => JSON.parse(responseBody.toString('utf8')),
    event,
  };
}

describe('the synthesized bundles, driven with API Gateway events', () => {
  it('has a bundle for every route', () => {
    expect([...bundleOfRoute.keys()].map((r) => r.operationId).sort()).toEqual(routes.map((r) => r.operationId).sort());
  });

  it('loads every bundle: each resolves its own protobuf descriptor when it loads (shared/proto/encoding.ts)', async () => {
    for (const route of routes) {
      const handler = await handlerOf(route);
      expect(typeof handler, route.operationId).toBe('function');
    }
  });

  it('serves a scenario: login, create with env (form-encoded body), lists with repeated parameters, protobuf, YAML upload, download', async () => {
    const tenant = await createTenant();
    const login = await invoke('GET', '/api/v1/auth/login', { headers: [['X-ApiKey', tenant.apiKey]] });
    expect(login.status).toBe(200);
    const auth: [string, string] = ['Authorization', `Bearer ${login.json().token}`];

    const user = await invoke('GET', '/api/v1/user', {
      headers: [auth, ['Accept', 'application/json'], ['Accept', 'text/plain']],
    });
    expect(user.event.headers.accept).toBe('application/json,text/plain'); // repeated headers: comma-joined
    expect(user.status).toBe(200);

    // curl -d without a Content-Type sends form encoding: API Gateway base64-encodes it, the pipeline decodes it.
    const created = await invoke('POST', `/api/v1/org/${tenant.orgId}/app`, {
      headers: [auth, ['Content-Type', 'application/x-www-form-urlencoded']],
      body: JSON.stringify({ name: 'lambda-shop', env: 'production' }),
    });
    expect(created.event.isBase64Encoded).toBe(true);
    expect(created.status, created.body.toString()).toBe(200);
    const appId = created.json().applicationId as string;

    const envs = await invoke('GET', `/api/v2/org/${tenant.orgId}/envs?appIds=${appId}&appIds=${appId}&pageSize=10`, {
      headers: [auth],
    });
    expect(envs.event.queryStringParameters?.appIds).toBe(`${appId},${appId}`); // repeated parameters: comma-joined
    expect(envs.status, envs.body.toString()).toBe(200);
    expect(JSON.stringify(envs.json())).toContain('"production"');

    const proto = await invoke('GET', `/api/v2/org/${tenant.orgId}/apps?pageSize=50`, {
      headers: [auth, ['Accept', 'application/x-protobuf']],
    });
    expect(proto.status).toBe(200);
    expect(proto.headers['content-type']).toContain('application/x-protobuf');
    const listType = protobuf.Root.fromJSON(descriptor as protobuf.INamespace).lookupType(
      matchRoute('GET', `/api/v2/org/${tenant.orgId}/apps`)!.response,
    );
    expect(JSON.stringify(listType.toObject(listType.decode(proto.body)))).toContain('lambda-shop');

    const yaml = 'openapi: 3.0.3\ninfo:\n  title: Shop\n  version: "1"\npaths: {}\n';
    const upload = await invoke('POST', `/api/v1/oas/${appId}/upload`, {
      headers: [auth, ['Content-Type', 'application/x-yaml']],
      body: yaml,
    });
    expect(upload.event.isBase64Encoded).toBe(true);
    expect(upload.status, upload.body.toString()).toBe(200);

    // A ZAP report imported as a scan: XML passes as text; a body API Gateway base64-encodes (as it does for
    // binary media types) is decoded by the pipeline the same way.
    const report = readFileSync(
      new URL('../../scanner/test/fixtures/zap/zap-xml_2.7.0_crlf_defectdojo-zap_sample.xml', import.meta.url),
    );
    const imported = await invoke('POST', `/api/v1/app/${appId}/scan/import?env=zap`, {
      headers: [auth, ['Content-Type', 'application/xml']],
      body: report,
    });
    expect(imported.event.isBase64Encoded).toBe(false);
    expect(imported.status, imported.body.toString()).toBe(200);
    expect(imported.json()).toMatchObject({ envName: 'zap', alertsImported: 4, urisImported: 7 });
    const importRoute = matchRoute('POST', `/api/v1/app/${appId}/scan/import`)!;
    const encoded = apiGatewayEvent(
      {
        method: 'POST',
        target: `/api/v1/app/${appId}/scan/import?env=zap`,
        headers: [['host', 'api.example.test'], auth, ['content-type', 'application/xml']],
        body: report,
        sourceIp: '203.0.113.7',
      },
      importRoute,
    );
    Object.assign(encoded, { body: report.toString('base64'), isBase64Encoded: true });
    const again = await (await handlerOf(importRoute))(encoded, lambdaContext(importRoute));
    expect(again.statusCode, again.body).toBe(200);
    const second = JSON.parse(again.body!);
    expect(second).toMatchObject({ envId: imported.json().envId, environmentCreated: false, urisImported: 7 });
    const alerts = await invoke('GET', `/api/v1/scan/${second.scanId}/alerts`, { headers: [auth] });
    expect(
      alerts
        .json()
        .applicationScanResults[0].applicationAlerts.map((a: { uriCount: number }) => a.uriCount)
        .reduce((n: number, c: number) => n + c, 0),
    ).toBe(7);

    // /oas/{orgId}/{oasId}: API Gateway names the first parameter after /oas/{appId}/upload.
    const download = await invoke('GET', `/api/v1/oas/${tenant.orgId}/${appId}`, { headers: [auth] });
    expect(download.event.pathParameters).toEqual({ appId: tenant.orgId, oasId: appId });
    expect(download.status, download.body.toString()).toBe(200);
    expect(download.json().presignedDownloadUrl).toContain(`apps/${appId}/oas/`);
  });

  it('answers 4xx, never 5xx, to encoded and malformed paths as API Gateway passes them (decoded rawPath)', async () => {
    const tenant = await createTenant();
    const auth: [string, string] = ['Authorization', `Bearer ${tenant.token}`];
    for (const name of ['no%20such', 'bad%zz', '%', '%E0%A4%A', 'x%2Fy']) {
      const answer = await invoke('GET', `/api/v1/global-configuration/${name}`, { headers: [auth] });
      expect(answer.status, `${name}: ${answer.body.toString()}`).toBeGreaterThanOrEqual(400);
      expect(answer.status, name).toBeLessThan(500);
    }
    const spaced = await invoke('GET', '/api/v1/global-configuration/no%20such', { headers: [auth] });
    expect(spaced.event.rawPath).toBe('/api/v1/global-configuration/no such');
    expect(spaced.event.pathParameters).toEqual({ configName: 'no such' });
  });

  it('serves health, the OpenAPI document and the reference docs from the service bundle (files shipped beside it)', async () => {
    const [id] = resources.find(
      ([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description === SERVICE_DESCRIPTION,
    )!;
    const { handler } = require(bundles.get(id)!) as {
      handler: (event: Partial<LambdaEvent>) => Promise<LambdaResult>;
    };
    const get = async (rawPath: string) => {
      expect(templateRouteKeys.has(`GET ${rawPath}`) || templateRouteKeys.has('GET /docs/{file}')).toBe(true);
      return handler({
        rawPath,
        headers: {},
        requestContext: { http: { method: 'GET', path: rawPath } } as LambdaEvent['requestContext'],
      });
    };
    expect(JSON.parse((await get('/health')).body!)).toEqual({ status: 'ok' });
    const openapi = await get('/openapi.json');
    expect(openapi.body).toBe(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
    const docs = await get('/docs');
    expect(docs.headers!['content-security-policy']).toContain("script-src 'self'");
    expect(docs.body).toContain('/docs/swagger-ui-bundle.js');
    const script = await get('/docs/swagger-ui-bundle.js');
    expect(script.statusCode).toBe(200);
    expect(script.body!.length).toBeGreaterThan(100_000);
    expect((await get('/docs/nothing')).statusCode).toBe(404);
  });

  it('fits the largest documented upload into one Lambda event (6 MB, base64 adds a third)', async () => {
    const route = routes.find((r) => r.operationId === 'uploadOASForApplication')!;
    const body = Buffer.alloc(MAX_DESCRIPTION_BYTES, 'a');
    const event = apiGatewayEvent(
      // API Gateway accepts up to 10 KB of headers on an HTTP API.
      {
        method: 'POST',
        target: `/api/v1/oas/${crypto.randomUUID()}/upload`,
        headers: [
          ['content-type', 'application/x-yaml'],
          ['x-padding', 'p'.repeat(10 * 1024)],
        ],
        body,
        sourceIp: '203.0.113.7',
      },
      route,
    );
    expect(event.isBase64Encoded).toBe(true);
    expect(eventBytes(event)).toBeLessThan(LAMBDA_EVENT_LIMIT_BYTES);
    // One more quarter of the limit would not fit: the documented limit is the one clients can reach.
    const larger = apiGatewayEvent(
      {
        ...{
          method: 'POST',
          target: `/api/v1/oas/${crypto.randomUUID()}/upload`,
          headers: [['content-type', 'application/x-yaml']],
        },
        body: Buffer.alloc(MAX_DESCRIPTION_BYTES * 1.25),
        sourceIp: '203.0.113.7',
      },
      route,
    );
    expect(eventBytes(larger)).toBeGreaterThan(LAMBDA_EVENT_LIMIT_BYTES);
  });
});

/** The bundle of a function that serves no route, by its description (infra/stack.ts). */
function bundleOfFunction(description: string): string {
  const [id] = resources.find(
    ([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description === description,
  )!;
  return bundles.get(id)!;
}

/** An SQS event as the queue's event source mapping hands it to the consumer, one record per message. */
function sqsEvent(messages: DeliveryMessage[], receiveCount = 1): SQSEvent {
  return {
    Records: messages.map((message) => ({
      messageId: randomUUID(),
      receiptHandle: `handle-${randomUUID()}`,
      body: JSON.stringify(message),
      attributes: {
        ApproximateReceiveCount: String(receiveCount),
        SentTimestamp: String(Date.now()),
        SenderId: 'AROAEXAMPLE',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(JSON.stringify(message)).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:WebhookQueue',
      awsRegion: 'us-east-1',
    })),
  };
}

describe('the webhook delivery bundles, driven with SQS and EventBridge schedule events', () => {
  // The queue is not called on these paths (a delivery made or dropped); the bundles need its URL to load.
  process.env.WEBHOOK_QUEUE_URL ??= 'https://sqs.us-east-1.amazonaws.com/000000000000/hawk-webhooks-test';

  it("sends an SQS batch's deliveries signed, reports no failure, and drops a removed subscription's delivery", async () => {
    const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const tenant = await createTenant();
      const token = (await invoke('GET', '/api/v1/auth/login', { headers: [['X-ApiKey', tenant.apiKey]] })).json()
        .token as string;
      const auth: [string, string][] = [
        ['authorization', `Bearer ${token}`],
        ['content-type', 'application/json'],
      ];
      const settings = await invoke('PUT', `/api/v1/org/${tenant.orgId}/integrations/settings`, {
        headers: auth,
        body: JSON.stringify({ allowPrivateNetworks: true }),
      });
      expect(settings.status, settings.body.toString()).toBe(200);
      const port = (receiver.address() as AddressInfo).port;
      const created = await invoke('POST', `/api/v1/org/${tenant.orgId}/webhooks`, {
        headers: auth,
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['scanCompleted'] }),
      });
      expect(created.status, created.body.toString()).toBe(200);
      const { webhook, secret } = created.json();

      const consume = (require(bundleOfFunction(WEBHOOK_DELIVERY_DESCRIPTION)) as { handler: SqsHandler }).handler;
      const queued = async (n: number) => {
        const record = (await getWebhook(tenant.orgId, webhook.id))!;
        const event: OutboxEvent = {
          eventId: randomUUID(),
          type: 'scanCompleted',
          organizationId: tenant.orgId,
          applicationId: randomUUID(),
          occurredAt: Date.now() + n,
          data: {},
        };
        const delivery = deliveryOf(event, record, JSON.stringify({ service: 'StackHawk', n }));
        await db.send(new PutCommand(deliveryCreation(delivery).Put));
        return {
          organizationId: tenant.orgId,
          webhookId: webhook.id,
          createdAt: delivery.createdAt,
          deliveryId: delivery.deliveryId,
        } satisfies DeliveryMessage;
      };

      const messages = [await queued(1), await queued(2)];
      expect(await consume(sqsEvent(messages))).toEqual({ batchItemFailures: [] });
      expect(received.map((r) => r.headers['x-hawk-delivery']).sort()).toEqual(
        messages.map((m) => m.deliveryId).sort(),
      );
      for (const { headers, body } of received) {
        expect(headers['x-hawk-event']).toBe('scanCompleted');
        const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(headers['x-hawk-signature']))!;
        expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
      }
      for (const m of messages) expect((await getDelivery(m))!.status).toBe('DELIVERED');

      // A subscription removed while its delivery waited: dropped, never sent.
      const waiting = await queued(3);
      expect(
        (await invoke('DELETE', `/api/v1/org/${tenant.orgId}/webhooks/${webhook.id}`, { headers: auth })).status,
      ).toBe(200);
      expect(await consume(sqsEvent([waiting]))).toEqual({ batchItemFailures: [] });
      expect((await getDelivery(waiting))!.status).toBe('DROPPED');
      expect(received).toHaveLength(2);
    } finally {
      receiver.close();
    }
  });

  it('runs the relay on a scheduled event: an event no subscription wants leaves the outbox', async () => {
    const relay = (require(bundleOfFunction(WEBHOOK_RELAY_DESCRIPTION)) as { handler: ScheduledHandler }).handler;
    const event: OutboxEvent = {
      eventId: randomUUID(),
      type: 'scanStarted',
      organizationId: randomUUID(),
      applicationId: randomUUID(),
      occurredAt: Date.now(),
      data: {},
    };
    await db.send(new TransactWriteCommand({ TransactItems: [outboxItem(event)] }));
    const scheduled = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: ['arn:aws:events:us-east-1:000000000000:rule/RelayWebhooksSchedule'],
      detail: {},
    };
    const out = await relay(scheduled, { getRemainingTimeInMillis: () => 60_000 } as Context);
    expect(out.relayed).toBeGreaterThanOrEqual(0);
    const left = await db.send(
      new GetCommand({ TableName: process.env.TABLE_NAME, Key: keys.outboxEvent(event.eventId, event.occurredAt) }),
    );
    expect(left.Item).toBeUndefined();
  });

  it('runs the risk acceptance expiry on a scheduled event: a due entry whose application is gone is removed', async () => {
    const expire = (
      require(bundleOfFunction(RISK_EXPIRY_DESCRIPTION)) as {
        handler: (event: unknown) => Promise<{ expired: number }>;
      }
    ).handler;
    const due = {
      organizationId: randomUUID(),
      applicationId: randomUUID(),
      environmentId: randomUUID(),
      findingHash: 'a'.repeat(64),
      expiresAt: Date.now() - 1000,
    };
    const entry = keys.riskExpiry(due.expiresAt, due.applicationId, due.environmentId, due.findingHash);
    await db.send(
      new PutCommand({ TableName: process.env.TABLE_NAME, Item: { ...entry, entity: 'riskExpiry', ...due } }),
    );
    const out = await expire({
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: ['arn:aws:events:us-east-1:000000000000:rule/ExpireRiskAcceptancesSchedule'],
      detail: {},
    });
    expect(out.expired).toBeGreaterThanOrEqual(0);
    expect((await db.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: entry }))).Item).toBeUndefined();
  });
});

describe('the overdue check bundle, driven with an EventBridge schedule event', () => {
  it('consumes a due entry whose application is gone, recording nothing', async () => {
    const check = (
      require(bundleOfFunction(OVERDUE_CHECK_DESCRIPTION)) as {
        handler: (event: unknown) => Promise<{ environments: number; fired: number }>;
      }
    ).handler;
    const due = {
      organizationId: randomUUID(),
      applicationId: randomUUID(),
      environmentId: randomUUID(),
      checkAt: Date.now() - 1000,
    };
    const entry = keys.overdueWake(due.checkAt, due.organizationId, due.applicationId, due.environmentId);
    await db.send(
      new PutCommand({ TableName: process.env.TABLE_NAME, Item: { ...entry, entity: 'overdueWake', ...due } }),
    );
    const out = await check({
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: ['arn:aws:events:us-east-1:000000000000:rule/NotifyOverdueFindingsSchedule'],
      detail: {},
    });
    expect(out.fired).toBe(0);
    const { pk, sk } = entry;
    expect(
      (await db.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk, sk } }))).Item,
    ).toBeUndefined();
  });
});

describe('the scheduled sweep bundle, driven with an EventBridge schedule event', () => {
  it('sweeps an expired pending write that no request would visit again, and leaves one still in time', async () => {
    const sweep = (
      require(bundleOfFunction(STOPPED_WRITES_SWEEP_DESCRIPTION)) as {
        handler: (event: unknown, context: Context) => Promise<{ applications: number; swept: number }>;
      }
    ).handler;
    const [stoppedApp, runningApp] = [randomUUID(), randomUUID()];
    const pending = (expiresAt: number) => ({
      attempt: randomUUID(),
      environmentId: randomUUID(),
      scanId: randomUUID(),
      kind: 'completion' as const,
      expiresAt,
    });
    const [stopped, running] = [pending(Date.now() - 1_000), pending(Date.now() + 120_000)];
    await pendingFindingsStart(stoppedApp, stopped);
    await pendingFindingsStart(runningApp, running);
    const scheduled = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: ['arn:aws:events:us-east-1:000000000000:rule/SweepStoppedWritesSchedule'],
      detail: {},
    };
    const out = await sweep(scheduled, { getRemainingTimeInMillis: () => 60_000 } as Context);
    expect(out.swept).toBeGreaterThanOrEqual(1);
    const left = async (appId: string, attempt: string) =>
      (await db.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: keys.pendingFindings(appId, attempt) })))
        .Item;
    expect(await left(stoppedApp, stopped.attempt)).toBeUndefined();
    expect(await left(runningApp, running.attempt)).toMatchObject({ expiresAt: running.expiresAt });
  });
});

describe('the stopped runner task bundle, driven with ECS task state change events', () => {
  it("ends the run of a runner whose image could not be pulled in ERROR (PROVISIONING), and ignores another family's task", async () => {
    // What the stack gives the function (infra/stack.ts), read when its bundle loads; the others' as they were.
    const before = { cluster: process.env.SCAN_RUNNER_CLUSTER, family: process.env.SCAN_RUNNER_TASK_FAMILY };
    process.env.SCAN_RUNNER_CLUSTER = RUNNER_TASKS.clusterArn;
    process.env.SCAN_RUNNER_TASK_FAMILY = RUNNER_TASKS.family;
    try {
      const handle = (
        require(bundleOfFunction(RUNNER_STOPPED_DESCRIPTION)) as { handler: (event: unknown) => Promise<unknown> }
      ).handler;
      const tenant = await createTenant();
      await allowScanDomain(tenant.orgId, '127.0.0.1');
      const auth: [string, string][] = [
        ['authorization', `Bearer ${tenant.token}`],
        ['content-type', 'application/json'],
      ];
      const created = await invoke('POST', `/api/v1/org/${tenant.orgId}/app`, {
        headers: auth,
        body: JSON.stringify({
          name: 'hosted-lambda',
          env: 'production',
          applicationType: 'CLOUD',
          cloudScanTargetURL: 'http://127.0.0.1:9/',
        }),
      });
      expect(created.status, created.body.toString()).toBe(200);
      const appId = created.json().applicationId as string;
      const started = await invoke('POST', `/api/v1/app/${appId}/perch/start`, {
        headers: auth,
        body: JSON.stringify({ command: { command: 'START' }, env: 'production' }),
      });
      expect(started.status, started.body.toString()).toBe(200);
      const run = (await getRun(appId, true))!;
      const task = runnerTask(run, runnerAt('https://api.example.test'), 'the-runner-token');

      const other = taskStateChange(task, { ...STOPS.cannotPull, family: 'AnotherService' });
      expect(await handle(other)).toEqual({ ignored: "a task of another family than the runner's" });
      expect((await getRun(appId, true))!.state).toBe('QUEUED');

      const stopped = taskStateChange(task, STOPS.cannotPull);
      expect(await handle(stopped)).toEqual({
        ended: { applicationId: appId, scanKey: run.scanKey, errorType: 'PROVISIONING' },
      });
      const status = await invoke('GET', `/api/v1/app/${appId}/perch/status`, { headers: auth });
      expect(status.json().device).toMatchObject({
        status: 'HOSTED_SCANNER_ERRORED',
        command: {
          errors: [{ errorType: 'PROVISIONING', message: expect.stringMatching(/CannotPullContainerError/) }],
        },
      });
      expect(await handle(stopped)).toEqual({
        ignored: 'the run it was launched for is ERROR, carried by another agent or over',
      });
    } finally {
      for (const [name, value] of [
        ['SCAN_RUNNER_CLUSTER', before.cluster],
        ['SCAN_RUNNER_TASK_FAMILY', before.family],
      ] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });
});

describe("the scheduled scan bundle, driven with EventBridge Scheduler's invocations", () => {
  it('starts the due run once, makes up no missed time, deletes what a gone schedule left, and ignores a malformed event', async () => {
    const run = (
      require(bundleOfFunction(SCHEDULED_SCAN_DESCRIPTION)) as {
        handler: (event: unknown) => Promise<{ outcome: string }>;
      }
    ).handler;
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const app = async () => {
      const out = await invoke('POST', `/api/v1/org/${tenant.orgId}/app`, {
        headers: [
          ['authorization', `Bearer ${tenant.token}`],
          ['content-type', 'application/json'],
        ],
        body: JSON.stringify({
          name: `scheduled-${randomUUID()}`,
          env: 'production',
          applicationType: 'CLOUD',
          cloudScanTargetURL: 'http://127.0.0.1:9/',
        }),
      });
      expect(out.status).toBe(200);
      return out.json().applicationId as string;
    };
    // Schedules written as createSchedule writes them, but without the local clock's entry: only these invocations
    // act on them (EventBridge Scheduler's part on AWS).
    const schedule = async (): Promise<ScheduleRecord> => {
      const record: ScheduleRecord = {
        organizationId: tenant.orgId,
        applicationId: await app(),
        scheduleId: randomUUID(),
        env: 'production',
        cron: '* * * * *',
        timezone: 'Europe/Paris',
        kind: 'SCAN',
        enabled: true,
        userId: tenant.userId,
        createdAt: Date.now(),
        updatedAt: Date.now(),
        revision: 1,
      };
      await db.send(new TransactWriteCommand({ TransactItems: [putSchedule(record)] }));
      return record;
    };
    const [due, missed] = [await schedule(), await schedule()];
    // The minute just begun, as the scheduler fills in `<aws.scheduler.scheduled-time>`.
    if (Date.now() % 60_000 > 45_000)
      await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000)));
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const event = (s: ScheduleRecord, at: number) => ({
      organizationId: s.organizationId,
      applicationId: s.applicationId,
      scheduleId: s.scheduleId,
      dueAt: new Date(at).toISOString().replace('.000Z', 'Z'),
    });

    expect(await run(event(due, minute))).toEqual({ outcome: 'STARTED' });
    const started = (await getSchedule(due.applicationId, due.scheduleId))!;
    expect(started).toMatchObject({ lastResult: 'STARTED', lastDueAt: minute, dueAt: minute + 60_000 });
    expect((await getRun(due.applicationId))!.scanKey).toBe(started.lastRunScanKey);
    // Delivered again (a retry, twice at once): the time was acted on; nothing starts twice.
    const again = await Promise.all([run(event(due, minute)), run(event(due, minute))]);
    expect(again).toEqual([{ outcome: 'NOT_DUE' }, { outcome: 'NOT_DUE' }]);
    expect((await getRun(due.applicationId))!.scanKey).toBe(started.lastRunScanKey);

    // Five minutes late (the service was down): not made up.
    expect(await run(event(missed, minute - 300_000))).toEqual({ outcome: 'MISSED' });
    expect(await getRun(missed.applicationId)).toBeUndefined();
    expect((await getSchedule(missed.applicationId, missed.scheduleId))!.lastResult).toBeUndefined();

    // A schedule that is gone (deleted, or its application): nothing starts.
    const other = await app();
    expect(await run({ ...event(due, minute), applicationId: other, scheduleId: randomUUID() })).toEqual({
      outcome: 'GONE',
    });
    expect(await getRun(other)).toBeUndefined();
    // Another organization's entry names no schedule of this one.
    expect(await run({ ...event(due, minute + 60_000), organizationId: randomUUID() })).toEqual({ outcome: 'GONE' });
    expect(await run({ scheduleId: 'x', dueAt: 'yesterday' })).toEqual({ outcome: 'IGNORED' });

    // The local clock's entries the starts wrote go with the schedules.
    for (const s of [due, missed])
      expect(
        (
          await invoke('DELETE', `/api/v1/app/${s.applicationId}/schedules/${s.scheduleId}`, {
            headers: [['authorization', `Bearer ${tenant.token}`]],
          })
        ).status,
      ).toBe(200);
  }, 120_000);
});
