import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { alert, completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { hostedScanWithCoverage, sampleCoverage } from './hosted-run-helpers.ts';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { queryAll } from '../../shared/db/query.ts';
import { relayEvent } from '../../shared/delivery/relay.ts';
import { tableQueue } from '../../shared/delivery/table-queue.ts';

// Webhook subscriptions (docs/WEBHOOKS.md): CRUD through createWebhook & co., the secret shown once and stored
// sealed, receivers checked against private and metadata addresses, and the events recorded with the changes.

const hooks = (orgId: string) => `/api/v1/org/${orgId}/webhooks`;

async function allowPrivate(tenant: Tenant, allow = true) {
  const out = await api('PUT', `/api/v1/org/${tenant.orgId}/integrations/settings`, {
    token: tenant.token,
    body: { allowPrivateNetworks: allow },
  });
  expect(out.status, out.text).toBe(200);
}

describe('webhook subscriptions', () => {
  it('creates one with its secret shown once, lists, gets, updates and deletes it, each audited', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const created = await api('POST', hooks(tenant.orgId), {
      token: tenant.token,
      body: {
        url: 'http://127.0.0.1:9/hook?token=abc',
        events: ['scanCompleted', 'scanStarted', 'scanCompleted'],
        name: 'ci',
        customHeader: { name: 'X-Api-Token', value: 'header-secret' },
      },
    });
    expect(created.status, created.text).toBe(200);
    const { webhook, secret } = created.body;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(webhook).toMatchObject({
      name: 'ci',
      url: 'http://127.0.0.1:9/hook?…',
      events: ['scanCompleted', 'scanStarted'],
      format: 'json',
      enabled: true,
      customHeaderName: 'X-Api-Token',
      organizationId: tenant.orgId,
    });

    const listed = await api('GET', hooks(tenant.orgId), { token: tenant.token });
    expect(listed.status).toBe(200);
    expect(listed.body.webhooks).toEqual([webhook]);
    expect(listed.text).not.toContain(secret);
    const got = await api('GET', `${hooks(tenant.orgId)}/${webhook.id}`, { token: tenant.token });
    expect(got.body).toEqual({ webhook });

    // Stored sealed: neither the secret, the URL's token nor the header value is in the item.
    const [item] = await queryAll({ partition: `ORG#${tenant.orgId}`, skPrefix: `WEBHOOK#${webhook.id}` });
    const stored = JSON.stringify(item);
    for (const plain of [secret, 'token=abc', 'header-secret']) expect(stored).not.toContain(plain);

    const updated = await api('PUT', `${hooks(tenant.orgId)}/${webhook.id}`, {
      token: tenant.token,
      body: { events: ['findingStatusChanged'], rotateSecret: true, customHeader: null },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.secret).toMatch(/^whsec_/);
    expect(updated.body.secret).not.toBe(secret);
    expect(updated.body.webhook).toMatchObject({ events: ['findingStatusChanged'], customHeaderName: '', name: 'ci' });

    const removed = await api('DELETE', `${hooks(tenant.orgId)}/${webhook.id}`, { token: tenant.token });
    expect(removed.status).toBe(200);
    expect((await api('GET', `${hooks(tenant.orgId)}/${webhook.id}`, { token: tenant.token })).status).toBe(404);
    expect((await api('GET', hooks(tenant.orgId), { token: tenant.token })).body.webhooks ?? []).toEqual([]);

    const audit = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: tenant.token });
    const types = audit.body.auditRecords.map((r: { userActivityType: string }) => r.userActivityType);
    expect(types).toEqual([
      'INTEGRATION_MODIFIED', // the settings
      'INTEGRATION_ADDED',
      'INTEGRATION_MODIFIED',
      'INTEGRATION_REMOVED',
    ]);
    expect(audit.text).not.toContain(secret);
    expect(JSON.parse(audit.body.auditRecords[1].payload)).toMatchObject({
      webhookId: webhook.id,
      integration: 'webhook',
    });
  });

  it('refuses private and loopback receivers unless the organization allows them, and metadata ones always', async () => {
    const tenant = await createTenant();
    const refused = await api('POST', hooks(tenant.orgId), {
      token: tenant.token,
      body: { url: 'http://127.0.0.1:8080/hook', events: ['scanCompleted'] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(
      /^url: 127\.0\.0\.1 resolves to 127\.0\.0\.1 is a private or loopback address/,
    );
    for (const url of ['http://10.1.2.3/', 'http://[::1]/', 'http://[::ffff:192.168.1.1]/', 'http://localhost:1/']) {
      const out = await api('POST', hooks(tenant.orgId), {
        token: tenant.token,
        body: { url, events: ['scanStarted'] },
      });
      expect(out.status, url).toBe(400);
    }
    await allowPrivate(tenant);
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/', 'http://0.0.0.0/']) {
      const out = await api('POST', hooks(tenant.orgId), {
        token: tenant.token,
        body: { url, events: ['scanStarted'] },
      });
      expect(out.status, url).toBe(400);
      expect(out.body.message).toMatch(/link-local, metadata or reserved/);
    }
    const allowed = await api('POST', hooks(tenant.orgId), {
      token: tenant.token,
      body: { url: 'http://127.0.0.1:8080/hook', events: ['scanCompleted'] },
    });
    expect(allowed.status, allowed.text).toBe(200);
    // Only an owner or administrator changes the setting.
    const member = await addUserTo(tenant.orgId, ['read:integration', 'write:integration']);
    const denied = await api('PUT', `/api/v1/org/${tenant.orgId}/integrations/settings`, {
      token: member.token,
      body: { allowPrivateNetworks: false },
    });
    expect(denied.status).toBe(403);
  });

  it('answers 400 naming the field for bad input, and changes nothing', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const cases: [unknown, RegExp][] = [
      [{ url: 'http://127.0.0.1/', events: [] }, /events/],
      [{ url: 'http://127.0.0.1/', events: ['scanDeleted'] }, /events/],
      [{ url: 'ftp://127.0.0.1/', events: ['scanStarted'] }, /url: must be an http or https URL/],
      [{ url: 'http://user:pw@127.0.0.1/', events: ['scanStarted'] }, /url: must not carry a user name/],
      [{ url: 'not a url', events: ['scanStarted'] }, /url: must be an absolute/],
      [{ url: 'http://127.0.0.1/', events: ['scanStarted'], format: 'xml' }, /format/],
      [
        { url: 'http://127.0.0.1/', events: ['scanStarted'], customHeader: { name: 'X-Hawk-Event', value: 'x' } },
        /customHeader/,
      ],
      [
        { url: 'http://127.0.0.1/', events: ['scanStarted'], customHeader: { name: 'X-A', value: 'a\r\nb' } },
        /customHeader/,
      ],
      // The message said Content-* was reserved, yet Content-Encoding (which would mislabel the
      // body) was accepted.
      ...['Content-Encoding', 'content-language', 'Transfer-Encoding'].map((name): [unknown, RegExp] => [
        { url: 'http://127.0.0.1/', events: ['scanStarted'], customHeader: { name, value: 'gzip' } },
        /customHeader\.name: must not be Host, Content-\*, Transfer-Encoding, Connection, User-Agent or X-Hawk-\*/,
      ]),
      [{ url: 'http://no-such-host.invalid/', events: ['scanStarted'] }, /does not resolve/],
    ];
    for (const [body, message] of cases) {
      const out = await api('POST', hooks(tenant.orgId), { token: tenant.token, body });
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toMatch(message);
    }
    const unknownApp = await api('POST', hooks(tenant.orgId), {
      token: tenant.token,
      body: { url: 'http://127.0.0.1/', events: ['scanStarted'], applicationIds: [crypto.randomUUID()] },
    });
    expect(unknownApp.status).toBe(404);
    expect((await api('GET', hooks(tenant.orgId), { token: tenant.token })).body.webhooks ?? []).toEqual([]);
  });

  it('needs read:integration to read and write:integration to change; other organizations see nothing', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const { webhook } = (
      await api('POST', hooks(tenant.orgId), {
        token: tenant.token,
        body: { url: 'http://127.0.0.1/', events: ['scanStarted'] },
      })
    ).body;
    const reader = await addUserTo(tenant.orgId, ['read:integration']);
    expect((await api('GET', hooks(tenant.orgId), { token: reader.token })).status).toBe(200);
    const write = await api('POST', hooks(tenant.orgId), {
      token: reader.token,
      body: { url: 'http://127.0.0.1/', events: ['scanStarted'] },
    });
    // A missing permission answers 401, deliberately vague (docs/API.md, Errors).
    expect(write.status).toBe(401);
    expect((await api('DELETE', `${hooks(tenant.orgId)}/${webhook.id}`, { token: reader.token })).status).toBe(401);
    const none = await addUserTo(tenant.orgId, ['read:application']);
    expect((await api('GET', hooks(tenant.orgId), { token: none.token })).status).toBe(401);

    const other = await createTenant();
    expect((await api('GET', `${hooks(other.orgId)}/${webhook.id}`, { token: other.token })).status).toBe(404);
    expect((await api('DELETE', `${hooks(other.orgId)}/${webhook.id}`, { token: other.token })).status).toBe(404);
    expect((await api('GET', hooks(tenant.orgId), { token: other.token })).status).toBe(401);
  });
});

interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
}

/** A webhook receiver on loopback: records every request and answers with `answer(n)` (n: requests so far). */
async function startReceiver(answer: (n: number) => number = () => 200) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: request.headers, raw, body: JSON.parse(raw) });
      response.writeHead(answer(received.length), { 'content-type': 'text/plain' }).end('ok from receiver');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The receiver's check: HMAC-SHA256(secret, "<t>.<raw body>") in hex, compared in constant time, t recent. */
function verifySignature(secret: string, header: string, raw: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
  const expected = createHmac('sha256', secret).update(`${parts.t}.${raw}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return (
    Math.abs(Date.now() / 1000 - Number(parts.t)) < 300 &&
    given.length === expected.length &&
    timingSafeEqual(given, expected)
  );
}

async function until<T>(what: () => Promise<T> | T, ok: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (ok(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function subscribe(tenant: Tenant, url: string, events: string[]) {
  const created = await api('POST', hooks(tenant.orgId), { token: tenant.token, body: { url, events } });
  expect(created.status, created.text).toBe(200);
  return created.body as { webhook: { id: string }; secret: string };
}

const deliveriesOf = async (tenant: Tenant, webhookId: string) => {
  const out = await api('GET', `${hooks(tenant.orgId)}/${webhookId}/deliveries`, { token: tenant.token });
  expect(out.status, out.text).toBe(200);
  return out.body.deliveries as any[];
};

describe('webhook delivery (the in-table queue of npm start)', () => {
  it("a hosted scan's scanCompleted carries its coverage verdict and reasons", async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const receiver = await startReceiver();
    try {
      await subscribe(tenant, receiver.url, ['scanCompleted']);
      const { scanId } = await hostedScanWithCoverage(tenant);
      const received = await until(
        () => receiver.received,
        (r) => r.length >= 1,
      );
      const completed = received.find((r) => r.headers['x-hawk-event'] === 'scanCompleted')!.body.scanCompleted;
      expect(completed.scan.id).toBe(scanId);
      expect(completed.completedScanStats.urlsCount).toBe(String(sampleCoverage.pages));
      expect(completed.coverage).toEqual({ verdict: sampleCoverage.verdict, reasons: sampleCoverage.reasons });
    } finally {
      await receiver.close();
    }
  });

  it('a scan and a triage reach the receiver once each, signed, in StackHawk shape, and are logged', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const receiver = await startReceiver();
    try {
      const { webhook, secret } = await subscribe(tenant, receiver.url, [
        'scanStarted',
        'scanCompleted',
        'findingStatusChanged',
      ]);
      const appId = await createApp(tenant);
      const { scanId, envId } = await startScan(tenant.token, appId);
      await reportAlerts(tenant.token, scanId, [alert('10038', 'High', 2), alert('10020', 'Low', 1)]);
      await completeScan(tenant.token, scanId);
      await until(
        () => receiver.received,
        (r) => r.length >= 2,
      );
      const events = receiver.received.map((r) => r.headers['x-hawk-event']);
      expect(events.sort()).toEqual(['scanCompleted', 'scanStarted']);
      for (const request of receiver.received) {
        expect(request.headers['content-type']).toBe('application/json');
        expect(verifySignature(secret, String(request.headers['x-hawk-signature']), request.raw)).toBe(true);
        expect(verifySignature('whsec_other', String(request.headers['x-hawk-signature']), request.raw)).toBe(false);
      }
      const completed = receiver.received.find((r) => r.headers['x-hawk-event'] === 'scanCompleted')!.body;
      expect(completed.service).toBe('StackHawk');
      expect(completed.scanCompleted.coverage).toBeUndefined(); // a reported scan has no coverage record
      expect(completed.scanCompleted.scan).toMatchObject({ id: scanId, envId, applicationId: appId, env: 'dev' });
      expect(completed.scanCompleted.completedScanStats.scanResultsStats).toMatchObject({
        highCount: '2',
        lowCount: '1',
        mediumCount: '0',
      });
      expect(
        completed.scanCompleted.findings.map((f: any) => [f.pluginId, f.severity, f.totalCount, f.paths.length]),
      ).toEqual([
        ['10038', 'High', '2', 2],
        ['10020', 'Low', '1', 1],
      ]);

      // A relay run again (as after a crash before the event left the outbox) records and sends nothing new.
      const logged = await until(
        () => deliveriesOf(tenant, webhook.id),
        (d) => d.length === 2 && d.every((x) => x.status === 'DELIVERED'),
      );
      const again = logged.find((d) => d.event === 'scanCompleted');
      await relayEvent(
        {
          eventId: again.eventId,
          type: 'scanCompleted',
          organizationId: tenant.orgId,
          applicationId: appId,
          occurredAt: Date.parse(again.createdAt),
          data: { scanId, envId, appName: 'scanned', envName: 'dev', status: 'COMPLETED', startedAt: Date.now() },
        },
        tableQueue(),
      );

      const findings = await api('GET', `/api/v1/scan/${scanId}/alert/10038`, { token: tenant.token });
      const findingHash = findings.body.applicationScanAlertUris[0].findingHash;
      const triage = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
        token: tenant.token,
        body: { actions: [{ findingHash, status: 'FALSE_POSITIVE', note: 'not reachable' }] },
      });
      expect(triage.status, triage.text).toBe(200);
      await until(
        () => receiver.received,
        (r) => r.length >= 3,
      );
      await new Promise((resolve) => setTimeout(resolve, 1500)); // time for a duplicate to show, were there one
      expect(receiver.received.map((r) => r.headers['x-hawk-event']).sort()).toEqual([
        'findingStatusChanged',
        'scanCompleted',
        'scanStarted',
      ]);
      expect(new Set(receiver.received.map((r) => r.headers['x-hawk-delivery'])).size).toBe(3);
      expect(receiver.received[2].body.findingStatusChanged).toMatchObject({
        applicationId: appId,
        envId,
        finding: { findingHash, pluginId: '10038' },
        oldStatus: 'NEW',
        newStatus: 'FALSE_POSITIVE',
      });

      // The consumer logs an attempt after the receiver answered it: the receiver may hold the third before the log.
      const log = await until(
        () => deliveriesOf(tenant, webhook.id),
        (d) => d.length === 3 && d.every((x) => x.status === 'DELIVERED'),
      );
      expect(log.map((d) => [d.event, d.status, d.attemptCount])).toEqual([
        ['findingStatusChanged', 'DELIVERED', 1],
        ['scanCompleted', 'DELIVERED', 1],
        ['scanStarted', 'DELIVERED', 1],
      ]);
      expect(log[0].attempts[0]).toMatchObject({ statusCode: 200, error: '', responseExcerpt: 'ok from receiver' });
      expect(log[0].id).toBe(receiver.received[2].headers['x-hawk-delivery']);
      const other = await createTenant();
      const foreign = await api('GET', `${hooks(other.orgId)}/${webhook.id}/deliveries`, { token: other.token });
      expect(foreign.status).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it('retries a failing receiver: delivered once it answers, dead after the last attempt', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const flaky = await startReceiver((n) => (n <= 2 ? 503 : 200));
    const down = await startReceiver(() => 500);
    try {
      const flakyHook = await subscribe(tenant, flaky.url, ['scanStarted']);
      const downHook = await subscribe(tenant, down.url, ['scanStarted']);
      const appId = await createApp(tenant);
      await startScan(tenant.token, appId);

      const recovered = await until(
        () => deliveriesOf(tenant, flakyHook.webhook.id),
        (d) => d[0]?.status === 'DELIVERED',
      );
      expect(recovered.map((d) => [d.status, d.attemptCount])).toEqual([['DELIVERED', 3]]);
      expect(recovered[0].attempts.map((a: any) => a.statusCode)).toEqual([503, 503, 200]);
      expect(flaky.received).toHaveLength(3);
      expect(new Set(flaky.received.map((r) => r.headers['x-hawk-delivery'])).size).toBe(1);

      // WEBHOOK_MAX_ATTEMPTS is 3 in the tests: the third failure is the last.
      const dead = await until(
        () => deliveriesOf(tenant, downHook.webhook.id),
        (d) => d[0]?.status === 'DEAD',
      );
      expect(dead.map((d) => [d.status, d.attemptCount])).toEqual([['DEAD', 3]]);
      expect(dead[0].attempts[2]).toMatchObject({ statusCode: 500, error: 'the receiver answered 500' });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(down.received).toHaveLength(3);
    } finally {
      await flaky.close();
      await down.close();
    }
  });

  it('refuses at delivery a private receiver the organization no longer allows, without retrying', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const receiver = await startReceiver();
    try {
      const { webhook } = await subscribe(tenant, receiver.url, ['scanStarted']);
      await allowPrivate(tenant, false);
      const appId = await createApp(tenant);
      await startScan(tenant.token, appId);
      const log = await until(
        () => deliveriesOf(tenant, webhook.id),
        (d) => d[0]?.status === 'DEAD',
      );
      expect(log[0].attemptCount).toBe(1);
      expect(log[0].attempts[0].error).toMatch(/^refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1 is a private/);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });
});

describe('testing a subscription and redelivering (testWebhook, redeliverWebhookDelivery)', () => {
  const test = (tenant: Tenant, webhookId: string, token = tenant.token) =>
    api('POST', `${hooks(tenant.orgId)}/${webhookId}/test`, { token });
  const redeliver = (tenant: Tenant, webhookId: string, deliveryId: string, token = tenant.token) =>
    api('POST', `${hooks(tenant.orgId)}/${webhookId}/deliveries/${deliveryId}/redeliver`, { token });

  it('sends a signed ping through the queue and answers its outcome; a redelivery is a new delivery of the same event', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const receiver = await startReceiver();
    try {
      const { webhook, secret } = await subscribe(tenant, receiver.url, ['scanCompleted']);
      const tested = await test(tenant, webhook.id);
      expect(tested.status, tested.text).toBe(200);
      const ping = tested.body.delivery;
      expect(ping).toMatchObject({ event: 'ping', status: 'DELIVERED', attemptCount: 1, test: true, redeliveryOf: '' });
      expect(ping.attempts[0]).toMatchObject({ statusCode: 200, error: '', responseExcerpt: 'ok from receiver' });
      expect(receiver.received).toHaveLength(1);
      const [request] = receiver.received;
      expect(request.headers['x-hawk-event']).toBe('ping');
      expect(request.headers['x-hawk-delivery']).toBe(ping.id);
      expect(request.headers['x-hawk-event-id']).toBe(ping.eventId);
      expect(verifySignature(secret, String(request.headers['x-hawk-signature']), request.raw)).toBe(true);
      expect(request.body.ping).toMatchObject({
        webhookId: webhook.id,
        eventId: ping.eventId,
        events: ['scanCompleted'],
      });

      const again = await redeliver(tenant, webhook.id, ping.id);
      expect(again.status, again.text).toBe(200);
      expect(again.body.delivery).toMatchObject({ event: 'ping', eventId: ping.eventId, redeliveryOf: ping.id });
      expect(again.body.delivery.id).not.toBe(ping.id);
      await until(
        () => receiver.received,
        (r) => r.length >= 2,
      );
      expect(receiver.received[1].raw).toBe(request.raw);
      expect(receiver.received[1].headers['x-hawk-event-id']).toBe(ping.eventId);
      expect(receiver.received[1].headers['x-hawk-delivery']).toBe(again.body.delivery.id);
      const log = await until(
        () => deliveriesOf(tenant, webhook.id),
        (d) => d.length === 2 && d.every((x) => x.status === 'DELIVERED'),
      );
      expect(log.map((d) => [d.id, d.redeliveryOf])).toEqual([
        [again.body.delivery.id, ping.id],
        [ping.id, ''],
      ]);

      const audit = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: tenant.token });
      const payloads = audit.body.auditRecords
        .filter((r: { userActivityType: string }) => r.userActivityType === 'INTEGRATION_MODIFIED')
        .map((r: { payload: string }) => JSON.parse(r.payload));
      expect(payloads).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ action: 'test', webhookId: webhook.id, deliveryId: ping.id }),
          expect.objectContaining({ action: 'redeliver', redeliveryOf: ping.id, eventId: ping.eventId }),
        ]),
      );
    } finally {
      await receiver.close();
    }
  });

  it('tests a disabled subscription; shows a failing receiver, a refused address and a timeout as they are', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const failing = await startReceiver(() => 500);
    const hanging = createServer(() => undefined); // takes the request and never answers
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    try {
      const disabled = await api('POST', hooks(tenant.orgId), {
        token: tenant.token,
        body: { url: failing.url, events: ['scanStarted'], enabled: false },
      });
      const failed = await test(tenant, disabled.body.webhook.id);
      expect(failed.status, failed.text).toBe(200);
      expect(failed.body.delivery).toMatchObject({ status: 'RETRYING', attemptCount: 1 });
      expect(failed.body.delivery.attempts[0]).toMatchObject({
        statusCode: 500,
        error: 'the receiver answered 500',
        responseExcerpt: 'ok from receiver',
      });
      // Still retrying: not redelivered on top of its own retries.
      const busy = await redeliver(tenant, disabled.body.webhook.id, failed.body.delivery.id);
      expect(busy.status).toBe(409);
      expect(busy.body.message).toMatch(/is RETRYING: its next attempt is queued already/);

      const slow = await subscribe(tenant, `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`, [
        'scanStarted',
      ]);
      const timedOut = await test(tenant, slow.webhook.id);
      expect(timedOut.status, timedOut.text).toBe(200);
      expect(timedOut.body.delivery.attempts[0]).toMatchObject({
        statusCode: 0,
        error: 'no complete answer within 3000 ms',
      });

      await allowPrivate(tenant, false);
      const refused = await test(tenant, slow.webhook.id);
      expect(refused.body.delivery).toMatchObject({ status: 'DEAD', attemptCount: 1 });
      expect(refused.body.delivery.attempts[0].error).toMatch(/^refused: 127\.0\.0\.1 resolves to/);
    } finally {
      await failing.close();
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });

  it('refuses what cannot be redelivered with a clear message, and shows nothing of another organization', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const receiver = await startReceiver();
    try {
      const { webhook } = await subscribe(tenant, receiver.url, ['scanStarted']);
      const appId = await createApp(tenant);
      await startScan(tenant.token, appId);
      const [delivered] = await until(
        () => deliveriesOf(tenant, webhook.id),
        (d) => d[0]?.status === 'DELIVERED',
      );
      const disable = await api('PUT', `${hooks(tenant.orgId)}/${webhook.id}`, {
        token: tenant.token,
        body: { enabled: false },
      });
      expect(disable.status).toBe(200);
      const whileDisabled = await redeliver(tenant, webhook.id, delivered.id);
      expect(whileDisabled.status).toBe(409);
      expect(whileDisabled.body.message).toBe(`webhook ${webhook.id} is disabled: enable it, then redeliver`);
      await api('PUT', `${hooks(tenant.orgId)}/${webhook.id}`, { token: tenant.token, body: { enabled: true } });

      const unknown = await redeliver(tenant, webhook.id, crypto.randomUUID());
      expect(unknown.status).toBe(404);
      expect((await redeliver(tenant, webhook.id, 'not-a-uuid')).status).toBe(400);
      const reader = await addUserTo(tenant.orgId, ['read:integration']);
      expect((await redeliver(tenant, webhook.id, delivered.id, reader.token)).status).toBe(401);
      expect((await test(tenant, webhook.id, reader.token)).status).toBe(401);

      const other = await createTenant();
      const foreign = await api('POST', `${hooks(other.orgId)}/${webhook.id}/deliveries/${delivered.id}/redeliver`, {
        token: other.token,
      });
      expect(foreign.status).toBe(404);
      expect((await api('POST', `${hooks(other.orgId)}/${webhook.id}/test`, { token: other.token })).status).toBe(404);
      // The other organization's own subscription does not reach this one's deliveries either.
      await allowPrivate(other);
      const theirs = await subscribe(other, receiver.url, ['scanStarted']);
      const crossed = await redeliver(other, theirs.webhook.id, delivered.id);
      expect(crossed.status).toBe(404);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.received).toHaveLength(1);

      const redelivered = await redeliver(tenant, webhook.id, delivered.id);
      expect(redelivered.status, redelivered.text).toBe(200);
      await until(
        () => receiver.received,
        (r) => r.length >= 2,
      );
      expect(receiver.received[1].headers['x-hawk-event-id']).toBe(receiver.received[0].headers['x-hawk-event-id']);
      expect(receiver.received[1].raw).toBe(receiver.received[0].raw);
    } finally {
      await receiver.close();
    }
  });
});
