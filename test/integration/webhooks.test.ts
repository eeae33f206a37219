import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { alert, completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { keys, OUTBOX_SHARDS } from '../../shared/db/keys.ts';
import { queryAll } from '../../shared/db/query.ts';

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

/** Every outbox item of the table about this scan or finding (events not yet handed to the delivery queue). */
async function outboxEventsOf(match: (data: Record<string, unknown>) => boolean) {
  const items = [];
  for (let shard = 0; shard < OUTBOX_SHARDS; shard++)
    items.push(...(await queryAll({ partition: keys.outboxShard(shard).pk, consistent: true })));
  return items.filter((item) => match(item.data as Record<string, unknown>));
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
    // A missing permission answers 401, deliberately vague (README, Errors).
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

describe('events recorded with their changes (the outbox)', () => {
  it('a scan start, completion and a triage each commit their event in their own transaction', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const { scanId, envId } = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, scanId, [alert('10038', 'High', 2), alert('10020', 'Low', 1)]);
    await completeScan(tenant.token, scanId);
    const events = await outboxEventsOf((data) => data.scanId === scanId);
    const byType = Object.fromEntries(events.map((e) => [e.type, e]));
    expect(Object.keys(byType).sort()).toEqual(['scanCompleted', 'scanStarted']);
    expect(byType.scanCompleted).toMatchObject({
      organizationId: tenant.orgId,
      applicationId: appId,
      data: { scanId, envId, envName: 'dev', appName: 'scanned', status: 'COMPLETED' },
    });

    const findings = await api('GET', `/api/v1/scan/${scanId}/alert/10038`, { token: tenant.token });
    const findingHash = findings.body.applicationScanAlertUris[0].findingHash;
    const triage = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
      token: tenant.token,
      body: { actions: [{ findingHash, status: 'FALSE_POSITIVE', note: 'not reachable' }] },
    });
    expect(triage.status, triage.text).toBe(200);
    const changed = await outboxEventsOf((data) => data.findingHash === findingHash);
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({
      type: 'findingStatusChanged',
      data: { oldStatus: 'UNKNOWN', newStatus: 'FALSE_POSITIVE', pluginId: '10038', note: 'not reachable' },
    });
  });
});
