import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { benchTenant, timingOf, type BenchSection } from './harness.ts';

// Webhook figures (docs/WEBHOOKS.md): (a) what a subscription adds to a scan's completion, whose transaction records
// the scanCompleted event in the outbox either way: reportScanCompleted's latency in an organization without a
// subscription and in one with a subscription to a loopback receiver, interleaved; the target is under 5%. Measured
// twice: each completion once the earlier events are relayed and delivered (the write itself, as on AWS, where
// delivery runs in functions of its own), and while they are (`npm start`, where the relay and the deliveries share
// the process and its CPU with the request). (b) Deliveries per second through the local
// in-table queue (relay, queue, consumer, signed POST) to a loopback receiver: events written straight into the
// outbox, timed until the receiver has them all, for one subscription and for ten.
const COMPLETIONS = 60;
const EVENTS = 300;

const round = (ms: number) => Math.round(ms * 100) / 100;

const section: BenchSection = {
  name: 'webhooks',
  async run(ctx) {
    const { TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
    const { db } = await import('../../shared/db/client.ts');
    const { outboxItem } = await import('../../shared/db/outbox.ts');
    const { queryAll } = await import('../../shared/db/query.ts');
    const { keys, OUTBOX_SHARDS } = await import('../../shared/db/keys.ts');

    let received = 0;
    const receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received++;
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

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
    const subscribe = async (call: ReturnType<typeof caller>, orgId: string, events: string[]) => {
      await call('PUT', `/api/v1/org/${orgId}/integrations/settings`, { allowPrivateNetworks: true });
      return (await call('POST', `/api/v1/org/${orgId}/webhooks`, { url: receiverUrl, events })).webhook.id as string;
    };

    try {
      // (a) scan completion with and without a subscription.
      const tenants: { call: ReturnType<typeof caller>; appId: string; samples: number[] }[] = [];
      for (const subscribed of [false, true]) {
        const tenant = await benchTenant(ctx, subscribed ? 'webhooks-one' : 'webhooks-none');
        const call = caller(tenant.token);
        if (subscribed) await subscribe(call, tenant.orgId, ['scanStarted', 'scanCompleted']);
        const app = await call('POST', `/api/v1/org/${tenant.orgId}/app`, { name: 'bench', env: 'dev' });
        tenants.push({ call, appId: app.applicationId, samples: [] });
      }
      const alerts = {
        alerts: [
          {
            pluginId: '10038',
            name: 'CSP',
            severity: 'Medium',
            uris: Array.from({ length: 20 }, (_, i) => ({ uri: `/p/${i}`, requestMethod: 'GET' })),
          },
        ],
      };
      /** Whether the outbox and the delivery queue are empty: every event so far relayed and delivered. */
      const settled = async () => {
        for (let shard = 0; shard < OUTBOX_SHARDS; shard++)
          if ((await queryAll({ partition: keys.outboxShard(shard).pk, consistent: true })).length) return false;
        return (await queryAll({ partition: keys.queueMessages('main').pk, consistent: true })).length === 0;
      };
      const completions = async (drain: boolean) => {
        for (const tenant of tenants) tenant.samples = [];
        for (let i = 0; i < COMPLETIONS + 5; i++)
          for (const tenant of i % 2 ? tenants : [...tenants].reverse()) {
            const { scanId } = await tenant.call('POST', `/api/v1/app/${tenant.appId}/scan`, {
              env: 'dev',
              config: 'app:\n  env: dev\n',
              hawkscanVersion: '4.0.0',
              host: 'https://target.test',
            });
            await tenant.call('POST', `/api/v1/scan/${scanId}/alerts`, alerts);
            if (drain) while (!(await settled())) await new Promise((resolve) => setTimeout(resolve, 20));
            const start = performance.now();
            await tenant.call('POST', `/api/v1/scan/${scanId}/complete`, { status: 'COMPLETED', urlCount: 20 });
            if (i >= 5) tenant.samples.push(performance.now() - start); // the first five warm up
          }
        const [without, withOne] = tenants.map((t) => timingOf(t.samples));
        return {
          withoutSubscription: without,
          withSubscription: withOne,
          addedP50Percent: round(((withOne.p50Ms - without.p50Ms) / without.p50Ms) * 100),
          addedMeanPercent: round(((withOne.meanMs - without.meanMs) / without.meanMs) * 100),
        };
      };
      ctx.progress(`scan completion, ${COMPLETIONS} each without and with a subscription, after the deliveries settle`);
      const writeOnly = await completions(true);
      ctx.progress(`scan completion, ${COMPLETIONS} each, while the deliveries run in the same process`);
      const beside = await completions(false);
      const completion = { targetPercent: 5, writeOnly, besideLocalDelivery: beside };

      // (b) delivery throughput through the in-table queue.
      const throughput = async (label: string, subscriptions: number) => {
        const tenant = await benchTenant(ctx, `webhooks-${label}`);
        const call = caller(tenant.token);
        for (let s = 0; s < subscriptions; s++) await subscribe(call, tenant.orgId, ['scanStarted']);
        await new Promise((resolve) => setTimeout(resolve, 500)); // the loop has settled what came before
        const events = EVENTS / subscriptions;
        const before = received;
        ctx.progress(`${events} events to ${subscriptions} subscription(s): ${EVENTS} deliveries`);
        const start = performance.now();
        for (let from = 0; from < events; from += 25) {
          const items = Array.from({ length: Math.min(25, events - from) }, (_, i) =>
            outboxItem({
              eventId: randomUUID(),
              type: 'scanStarted',
              organizationId: tenant.orgId,
              applicationId: randomUUID(),
              occurredAt: Date.now() + from + i,
              data: { scanId: randomUUID(), envId: randomUUID(), appName: 'bench', envName: 'dev', startedAt: 0 },
            }),
          );
          await db.send(new TransactWriteCommand({ TransactItems: items }));
        }
        const deadline = Date.now() + 300_000;
        while (received - before < EVENTS) {
          if (Date.now() > deadline) throw new Error(`only ${received - before} of ${EVENTS} deliveries in 5 minutes`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const seconds = (performance.now() - start) / 1000;
        return { deliveries: EVENTS, seconds: round(seconds), deliveriesPerSecond: Math.round(EVENTS / seconds) };
      };
      const oneSubscription = await throughput('throughput-1', 1);
      const tenSubscriptions = await throughput('throughput-10', 10);
      return { completion, delivery: { oneSubscription, tenSubscriptions } };
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  },
};

export default section;
