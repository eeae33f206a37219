import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { benchTenant, type BenchSection } from './harness.ts';

// Another organization's delivery delay behind one organization's hanging receivers (docs/WEBHOOKS.md, Delivery):
// organization A has HANGING subscriptions to a loopback receiver that takes each request and never answers (each
// attempt held for WEBHOOK_TIMEOUT_MS, 10 s) and A_EVENTS events for them, HANGING * A_EVENTS deliveries; once the
// local consumer is busy with them, organization B's events are written to the outbox one at a time, each timed
// until B's receiver has it. Measured on the local in-table queue (`npm start`); the SQS path's fairness is SQS's
// own (fair queues, by message group), which only a deployed stack can show.
const HANGING = 25;
const A_EVENTS = 8;
const B_EVENTS = 5;

const round = (ms: number) => Math.round(ms * 100) / 100;

const section: BenchSection = {
  name: 'webhook-fairness',
  async run(ctx) {
    const { TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
    const { db } = await import('../../shared/db/client.ts');
    const { outboxItem } = await import('../../shared/db/outbox.ts');

    let hangingRequests = 0;
    const hanging = createServer(() => hangingRequests++);
    const arrivals: number[] = [];
    const prompt = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        arrivals.push(performance.now());
        response.writeHead(200).end('ok');
      });
    });
    for (const server of [hanging, prompt])
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = (server: typeof hanging) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

    const caller = (token: string) => async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${ctx.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
      return JSON.parse(text);
    };
    const subscribe = async (tenant: { orgId: string; token: string }, receiver: string) => {
      const call = caller(tenant.token);
      await call('PUT', `/api/v1/org/${tenant.orgId}/integrations/settings`, { allowPrivateNetworks: true });
      return (await call('POST', `/api/v1/org/${tenant.orgId}/webhooks`, { url: receiver, events: ['scanStarted'] }))
        .webhook.id as string;
    };
    const record = (orgId: string) =>
      outboxItem({
        eventId: randomUUID(),
        type: 'scanStarted',
        organizationId: orgId,
        applicationId: randomUUID(),
        occurredAt: Date.now(),
        data: { scanId: randomUUID(), envId: randomUUID(), appName: 'bench', envName: 'dev', startedAt: 0 },
      });
    const waitFor = async (ok: () => boolean, what: string) => {
      const deadline = Date.now() + 300_000;
      while (!ok()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };

    const a = await benchTenant(ctx, 'fairness-hanging');
    const aHooks: string[] = [];
    try {
      for (let i = 0; i < HANGING; i++) aHooks.push(await subscribe(a, url(hanging)));
      const b = await benchTenant(ctx, 'fairness-quiet');
      await subscribe(b, url(prompt));
      ctx.progress(`${A_EVENTS} events to ${HANGING} hanging receivers: ${A_EVENTS * HANGING} deliveries`);
      await db.send(
        new TransactWriteCommand({ TransactItems: Array.from({ length: A_EVENTS }, () => record(a.orgId)) }),
      );
      await waitFor(() => hangingRequests >= 10, 'the consumer busy with the hanging receivers');
      const delays: number[] = [];
      for (let i = 0; i < B_EVENTS; i++) {
        const start = performance.now();
        await db.send(new TransactWriteCommand({ TransactItems: [record(b.orgId)] }));
        await waitFor(() => arrivals.length > i, "the other organization's delivery");
        delays.push(arrivals[i] - start);
        ctx.progress(`the other organization's delivery ${i + 1}: ${round(delays[i])} ms`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      const sorted = [...delays].sort((x, y) => x - y);
      return {
        hangingReceivers: HANGING,
        hangingDeliveries: A_EVENTS * HANGING,
        otherOrganizationDelayMs: {
          n: delays.length,
          p50Ms: round(sorted[Math.floor(sorted.length / 2)]),
          maxMs: round(sorted[sorted.length - 1]),
        },
        hangingAttemptsMeanwhile: hangingRequests,
      };
    } finally {
      // The hanging subscriptions' queued deliveries are dropped with them; the attempts under way end with the server.
      const call = caller(a.token);
      for (const id of aHooks) await call('DELETE', `/api/v1/org/${a.orgId}/webhooks/${id}`);
      for (const server of [hanging, prompt]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  },
};

export default section;
