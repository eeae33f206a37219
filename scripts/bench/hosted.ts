import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchTenant, type BenchSection } from './harness.ts';

// Hosted scans (docs/HOSTED-SCANS.md): the latency from startScan to RUNNING (the waiting agent's poll answering,
// then its acknowledgement committing), the DynamoDB calls and capacity units of an agent's heartbeat and of a whole
// idle long poll (what an idle agent costs per hour), and the agent's wall-time overhead over the same wapiti run
// alone (same target, same flags), as a ratio measured in one run (goal: under 1.15x).
const LATENCY_RUNS = 20;
const OVERHEAD_PAIRS = 3;
/** The larger target's pages: a wapiti run of about half a minute here. */
const LARGER_TARGET_PAGES = 40;
/** The long poll's length and, on AWS, its queue re-reads: as the service's defaults (shared/config.ts). */
const POLL_SECONDS = 25;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => Math.round(value * 10) / 10;

/**
 * A target for wapiti: a reflected parameter and a cookie without flags, and `pages` more pages that each reflect a
 * parameter of their own (none makes a run of a few seconds; more pages, a run closer to a real site's length).
 */
async function startTarget(pages = 0) {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://target');
    const page = /^\/page\/(\d+)$/.exec(url.pathname);
    const known = url.pathname === '/' || url.pathname === '/search' || (page && Number(page[1]) < pages);
    res.writeHead(known ? 200 : 404, { 'content-type': 'text/html', 'set-cookie': 'sid=abc; Path=/' });
    const links = Array.from({ length: pages }, (_, i) => `<a href="/page/${i}">page ${i}</a>`).join(' ');
    res.end(
      url.pathname === '/search'
        ? `<html><body>Results for ${url.searchParams.get('q')}</body></html>`
        : page
          ? `<html><body>Item ${url.searchParams.get('q')} <a href="/page/${page[1]}?q=item${page[1]}">item</a></body></html>`
          : `<html><body><a href="/search?q=shoes">search</a> ${links}</body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const section: BenchSection = {
  name: 'hosted',
  async run(ctx) {
    const { allowScanDomain } = await import('../../shared/perch/allowlist.ts');
    const { scopeObservers } = await import('../../shared/http/request-scope.ts');
    const { config } = await import('../../shared/config.ts');
    const { startAgent, wapitiEngine } = await import('@hawk-api/scanner/agent');
    const tenant = await benchTenant(ctx, 'hosted');
    const { orgId, token } = tenant;
    await allowScanDomain(orgId, '127.0.0.1');
    const target = await startTarget();

    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${ctx.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
      return text ? JSON.parse(text) : {};
    };
    const newApp = async (name: string, url = target.url) =>
      (
        await call('POST', `/api/v1/org/${orgId}/app`, {
          name,
          env: 'bench',
          applicationType: 'CLOUD',
          cloudScanTargetURL: url,
        })
      ).applicationId as string;

    try {
      // ---- DynamoDB calls of a heartbeat and of an idle long poll
      ctx.progress('an idle agent: DynamoDB calls per heartbeat and per long poll');
      const device = (await call('POST', `/api/v1/org/${orgId}/perch/devices`, { name: 'bench idle' }))
        .deviceId as string;
      const poll = (waitSeconds: number) =>
        call('POST', `/api/v1/org/${orgId}/perch/devices/${device}/poll`, { waitSeconds });
      const scopes: { dynamodbCalls: number; readUnits?: number; writeUnits?: number }[] = [];
      scopeObservers.push((scope) => scopes.push(scope));
      const observe = async (fn: () => Promise<unknown>) => {
        scopes.length = 0;
        await fn();
        const scope = scopes.find((s) => s.dynamodbCalls > 0) ?? scopes[0];
        return { calls: scope.dynamodbCalls, readUnits: scope.readUnits ?? 0, writeUnits: scope.writeUnits ?? 0 };
      };
      await observe(() => poll(0));
      const heartbeat = await observe(() => poll(0));
      const started = performance.now();
      const longPoll = await observe(() => poll(POLL_SECONDS));
      const longPollSeconds = (performance.now() - started) / 1000;
      scopeObservers.length = 0;
      const pollsPerHour = 3600 / longPollSeconds;
      const idle = {
        'heartbeat (a poll answering at once: UpdateItem + the queue read)': heartbeat,
        [`one idle long poll (${Math.round(longPollSeconds)} s; the queue read again every ${config.perchPollIntervalMs} ms)`]:
          longPoll,
        'an idle agent per hour': {
          polls: Math.round(pollsPerHour),
          calls: Math.round(pollsPerHour * longPoll.calls),
          readUnits: Math.round(pollsPerHour * longPoll.readUnits * 10) / 10,
          writeUnits: Math.round(pollsPerHour * longPoll.writeUnits * 10) / 10,
        },
      };

      // ---- startScan to RUNNING
      ctx.progress(`startScan to RUNNING, ${LATENCY_RUNS} times, an agent waiting in its long poll`);
      const latencyApp = await newApp('bench latency');
      const offered: number[] = [];
      const running: number[] = [];
      for (let i = 0; i < LATENCY_RUNS; i++) {
        const waiting = poll(20);
        await new Promise((resolve) => setTimeout(resolve, 50)); // the poll is waiting
        const t0 = performance.now();
        await call('POST', `/api/v1/app/${latencyApp}/perch/start`, { command: { command: 'START' }, env: 'bench' });
        const { command } = await waiting;
        const t1 = performance.now();
        await call('POST', `/api/v1/org/${orgId}/perch/devices/${device}/commands/${command.commandId}/ack`, {
          applicationId: latencyApp,
        });
        const t2 = performance.now();
        const status = await call('GET', `/api/v1/app/${latencyApp}/perch/status`);
        if (status.device.status !== 'RUNNING' || status.device.id !== device)
          throw new Error(`not running: ${JSON.stringify(status)}`);
        offered.push(t1 - t0);
        running.push(t2 - t0);
        await call('POST', `/api/v1/app/${latencyApp}/perch/stop`, {});
        await call('POST', `/api/v1/org/${orgId}/perch/devices/${device}/poll`, {
          waitSeconds: 0,
          running: { applicationId: latencyApp, scanKey: command.scanKey },
        });
      }
      const startToRunning = {
        runs: LATENCY_RUNS,
        'startScan sent to the command in the agent poll (p50 ms)': ms(median(offered)),
        'startScan sent to the acknowledgement committed: RUNNING (p50 ms)': ms(median(running)),
        'the same, slowest (ms)': ms(Math.max(...running)),
        note: `locally a start wakes the waiting polls at once; on AWS a waiting poll reads the queue every ${config.perchPollIntervalMs} ms, which bounds the wait`,
      };

      // ---- The agent's overhead over wapiti alone: on the small target (a few seconds of wapiti, where the agent's
      // fixed cost dominates the ratio) and on a larger one (a run closer to a real site's length).
      ctx.progress(
        `the agent's overhead: ${OVERHEAD_PAIRS} hosted scans and ${OVERHEAD_PAIRS} wapiti runs alone, alternating, on each of two targets`,
      );
      const engine = wapitiEngine({ maxAttackSeconds: 60 });
      const version = await engine.version();
      if (!version) throw new Error('wapiti is not installed: sudo apt-get install -y wapiti');
      const largerTarget = await startTarget(LARGER_TARGET_PAGES);
      const abort = new AbortController();
      const agent = await startAgent({
        url: ctx.baseUrl,
        apiKey: tenant.apiKey,
        orgId,
        name: 'bench agent',
        engines: [engine],
        signal: abort.signal,
      });
      const overheadOn = async (targetUrl: string, appName: string) => {
        const app = await newApp(appName, targetUrl);
        const alone: number[] = [];
        const hosted: number[] = [];
        for (let i = 0; i < OVERHEAD_PAIRS; i++) {
          const workDir = await mkdtemp(join(tmpdir(), 'hawk-bench-wapiti-'));
          const t0 = performance.now();
          await engine.run({
            targetUrl,
            headers: {},
            deadline: Date.now() + 3_600_000,
            signal: new AbortController().signal,
            workDir,
            log: () => {},
          });
          alone.push(performance.now() - t0);
          await rm(workDir, { recursive: true, force: true });

          const t1 = performance.now();
          await call('POST', `/api/v1/app/${app}/perch/start`, { command: { command: 'START' }, env: 'bench' });
          for (;;) {
            const status = await call('GET', `/api/v1/app/${app}/perch/status`);
            if (status.device.status === 'HOSTED_SCANNER_DISCONNECTED') break;
            if (status.device.status !== 'RUNNING')
              throw new Error(`the hosted scan failed: ${JSON.stringify(status)}`);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          hosted.push(performance.now() - t1);
        }
        return {
          engine: `wapiti ${version}`,
          pairs: OVERHEAD_PAIRS,
          'wapiti alone (median s)': ms(median(alone) / 1000),
          'hosted scan, startScan to COMPLETED seen (median s)': ms(median(hosted) / 1000),
          'fixed cost (median hosted - median alone, s)': ms((median(hosted) - median(alone)) / 1000),
          'ratio (median hosted / median alone; goal under 1.15)':
            Math.round((median(hosted) / median(alone)) * 100) / 100,
        };
      };
      let overhead;
      let overheadLarger;
      try {
        overhead = await overheadOn(target.url, 'bench overhead');
        overheadLarger = {
          target: `the index and ${LARGER_TARGET_PAGES} pages, each reflecting a parameter of its own`,
          ...(await overheadOn(largerTarget.url, 'bench overhead, larger site')),
        };
      } finally {
        abort.abort();
        await agent.done;
        await largerTarget.close();
      }
      return { idleAgent: idle, startToRunning, agentOverhead: overhead, agentOverheadLargerSite: overheadLarger };
    } finally {
      await target.close();
    }
  },
};

export default section;
