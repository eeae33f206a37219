import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { api } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { createApp, startScan } from './scan-helpers.ts';

// Each organization's fair share of the delivery consumer (docs/WEBHOOKS.md, Delivery): one organization's backlog
// of deliveries to receivers that never answer (each attempt held until WEBHOOK_TIMEOUT_MS, 3 s in the tests) does
// not hold back another organization's delivery, which is taken before that backlog drains.

const hooks = (orgId: string) => `/api/v1/org/${orgId}/webhooks`;
const SUBSCRIPTIONS = 10;
const SCANS = 5;
const BACKLOG = SUBSCRIPTIONS * SCANS;

async function subscribe(tenant: Tenant, url: string) {
  const allow = await api('PUT', `/api/v1/org/${tenant.orgId}/integrations/settings`, {
    token: tenant.token,
    body: { allowPrivateNetworks: true },
  });
  expect(allow.status, allow.text).toBe(200);
  const created = await api('POST', hooks(tenant.orgId), {
    token: tenant.token,
    body: { url, events: ['scanStarted'] },
  });
  expect(created.status, created.text).toBe(200);
  return created.body.webhook.id as string;
}

async function until(ok: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('webhook delivery shares the consumer between organizations', () => {
  it("takes another organization's delivery before one organization's backlog to hanging receivers drains", async () => {
    let hangingRequests = 0;
    const hanging = createServer(() => hangingRequests++); // takes each request and never answers
    let requestsWhenBArrived: number | undefined;
    const prompt = createServer((request, response) => {
      requestsWhenBArrived ??= hangingRequests;
      request.resume();
      response.writeHead(200).end('ok');
    });
    for (const server of [hanging, prompt])
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = (server: typeof hanging, path: string) =>
      `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
    const a = await createTenant();
    const aHooks: string[] = [];
    try {
      for (let i = 0; i < SUBSCRIPTIONS; i++) aHooks.push(await subscribe(a, url(hanging, `/hook/${i}`)));
      const aApp = await createApp(a, { name: 'noisy', env: 'dev' });
      for (let i = 0; i < SCANS; i++) await startScan(a.token, aApp);
      // Every delivery of A recorded (and so queued) and the consumer busy with them before B's event is recorded.
      const recorded = async () => {
        let total = 0;
        for (const id of aHooks)
          total += (await api('GET', `${hooks(a.orgId)}/${id}/deliveries`, { token: a.token })).body.deliveries.length;
        return total;
      };
      await until(async () => (await recorded()) === BACKLOG && hangingRequests >= SUBSCRIPTIONS, "A's backlog");

      const b = await createTenant();
      await subscribe(b, url(prompt, '/hook'));
      await startScan(b.token, await createApp(b, { name: 'quiet', env: 'dev' }));
      await until(() => requestsWhenBArrived !== undefined, "B's delivery", 120_000);
      // Taken oldest first, as before, B's delivery waited for every one of A's first attempts (BACKLOG requests,
      // BACKLOG / 10 rounds of the timeout); now it is taken while most of A's backlog still waits.
      expect(requestsWhenBArrived).toBeLessThan(BACKLOG / 2);
    } finally {
      // A's deliveries still queued are dropped with their subscriptions: nothing is left to hold other tests back.
      for (const id of aHooks) await api('DELETE', `${hooks(a.orgId)}/${id}`, { token: a.token });
      for (const server of [hanging, prompt]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  }, 240_000);
});
