import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchTenant, type BenchContext, type BenchSection } from './harness.ts';
import { startTargetProcess, type BenchTarget } from './hosted-targets.ts';
import { idleAgentCost } from './idle-agent.ts';
import { cpuMs, cpuSpent } from './cpu.ts';

// Hosted scans (docs/HOSTED-SCANS.md): the latency from startScan to RUNNING (the waiting agent's poll answering,
// then its acknowledgement committing), the DynamoDB calls and capacity units of an agent's heartbeat and of a whole
// idle long poll (what an idle agent costs per hour), and the agent's wall-time overhead over the same wapiti run
// alone (same target, same flags), as a ratio measured in one run (goal: under 1.15x), on two sites: a small one,
// where the agent's fixed cost shows, and a shop whose wapiti run takes a real site's scan time here (tens of
// seconds). Every run is checked: a failed, cut or empty run fails the bench, and each hosted scan must find the
// same findings (the same finding hashes) as wapiti alone. As in a deployment, the sites and the agent (the
// command line's `hawk-scanner agent`, its pinning proxy included) each run in a process of their own, apart from
// the service (this process): no two of them share an event loop.
const LATENCY_RUNS = 20;
/** Three pairs by default; BENCH_OVERHEAD_PAIRS=1 for the every-module run, tens of minutes a run (below). */
const OVERHEAD_PAIRS = Number(process.env.BENCH_OVERHEAD_PAIRS ?? 3);
/**
 * Wapiti's --max-attack-time for both the runs alone and the hosted scans (the same flags): high enough that no
 * module is cut on a busy machine, since a cut module finds what it had time for and the runs would differ.
 */
const BENCH_ATTACK_SECONDS = 600;
/**
 * The wapiti modules of both the runs alone and the hosted scans (the agent's HAWK_WAPITI_MODULES): five by default,
 * the modules the overhead was first measured with. Every module (BENCH_WAPITI_MODULES=all, a hosted scan's default)
 * sends the shop about 75,000 requests or more (blindsql alone tries each of its payloads on each of the 48 review
 * forms' fields), tens of minutes a run on the bench's machine: what each request costs through the agent's proxy is
 * the same either way.
 */
export const BENCH_WAPITI_MODULES =
  process.env.BENCH_WAPITI_MODULES === 'all'
    ? undefined
    : (process.env.BENCH_WAPITI_MODULES ?? 'xss,cookieflags,http_headers,csp,redirect');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => Math.round(value * 10) / 10;
const seconds = (value: number) => Math.round(value / 100) / 10;
const sleep = (wait: number) => new Promise((resolve) => setTimeout(resolve, wait));

type Call = (method: string, path: string, body?: unknown) => Promise<any>;

const section: BenchSection = {
  name: 'hosted',
  async run(ctx) {
    const { allowScanDomain } = await import('../../shared/applications/scan-domains.ts');
    const tenant = await benchTenant(ctx, 'hosted');
    const { orgId, token } = tenant;
    await allowScanDomain(orgId, '127.0.0.1');
    const target = await startTargetProcess('small');

    const call: Call = async (method, path, body) => {
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
      // ---- DynamoDB calls of an idle agent's polls (idle-agent.ts, which measures them alone too)
      const idle = await idleAgentCost(ctx, call, orgId, token);
      const device = (await call('POST', `/api/v1/org/${orgId}/perch/devices`, { name: 'bench latency' }))
        .deviceId as string;
      const poll = (waitSeconds: number) =>
        call('POST', `/api/v1/org/${orgId}/perch/devices/${device}/poll`, { waitSeconds });

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
        note: 'a start wakes the waiting polls at once, and the agents with a wake channel open (locally and on AWS); on AWS a long-polling agent gets a run queued while it waits at its next poll (within 25 s)',
      };

      // ---- The agent's overhead over wapiti alone (agentOverhead below)
      const overhead = await agentOverhead(ctx, tenant, call, newApp, target);
      return { idleAgent: idle, startToRunning, ...overhead };
    } finally {
      await target.close();
    }
  },
};

export default section;

/** A phase of a hosted scan, read from its run log's timestamps (docs/HOSTED-SCANS.md, Logs). */
const PHASES = {
  taken: "startScan sent to the agent's first log line (the poll's answer, the acknowledgement)",
  prepared:
    "the agent's preparation until wapiti starts (announcement sent, engine checked, pinning, probe, login, proxy)",
  engine: 'wapiti run, through the pinning proxy',
  reported: 'wapiti exited to reportScanCompleted answered (report read, findings uploaded)',
  ended: "reportScanCompleted answered to the run's end recorded (updateScanRun COMPLETED)",
} as const;

/** When each mark of a hosted scan's log was written (epoch ms), or why the log lacks one. */
function phaseMarks(log: string) {
  const at = (pattern: RegExp) => {
    const line = log.split('\n').find((l) => pattern.test(l.slice(25)));
    if (!line) throw new Error(`the run log has no line matching ${pattern}:\n${log.slice(-3000)}`);
    return Date.parse(line.slice(0, 24));
  };
  return {
    first: at(/^scan \S+ of application/),
    engineStart: at(/^wapiti -u /),
    released: at(/^the service recorded the scan/),
    engineEnd: at(/^wapiti: \d+ alerts/),
    completed: at(/^completed$/),
  };
}

/**
 * The agent's overhead over wapiti alone, on the small site and on the shop: OVERHEAD_PAIRS wapiti runs alone and
 * hosted scans, alternating, with the same engine (same flags). Each run is checked: wapiti alone must finish
 * uncut with findings, each hosted scan must end COMPLETED with exactly the finding hashes wapiti alone found.
 */
async function agentOverhead(
  ctx: BenchContext,
  tenant: { orgId: string; apiKey: string },
  call: Call,
  newApp: (name: string, url: string) => Promise<string>,
  small: BenchTarget,
) {
  const { wapitiEngine } = await import('@hawk-api/scanner/agent');
  const { findingHash } = await import('../../shared/results/model.ts');
  ctx.progress(
    `the agent's overhead: ${OVERHEAD_PAIRS} hosted scans and ${OVERHEAD_PAIRS} wapiti runs alone, alternating, on each of two sites`,
  );
  const engine = wapitiEngine({ maxAttackSeconds: BENCH_ATTACK_SECONDS, modules: BENCH_WAPITI_MODULES });
  const version = await engine.version();
  if (!version) throw new Error('wapiti is not installed: sudo apt-get install -y wapiti');
  const shop = await startTargetProcess('shop');
  const agent = await startAgentProcess(ctx.baseUrl, tenant);

  /** A hosted scan's findings as the service lists them: their hashes, and how many alert URIs. */
  const hostedFindings = async (scanId: string) => {
    const hashes = new Set<string>();
    let count = 0;
    const scan = await call('GET', `/api/v1/scan/${scanId}/alerts?pageSize=100`);
    if (scan.totalCount > 100) throw new Error(`scan ${scanId}: more than 100 alerts`);
    const result = scan.applicationScanResults[0];
    for (const alert of result.applicationAlerts ?? []) {
      // Pages of 100 (the public API's page tokens are page numbers), up to the alert's total.
      for (let page = 0, listed = 0, total = 1; listed < total; page++) {
        const uris = await call(
          'GET',
          `/api/v1/scan/${scanId}/alert/${encodeURIComponent(alert.pluginId)}?pageSize=100&pageToken=${page}`,
        );
        total = uris.totalCount;
        if (!uris.applicationScanAlertUris.length) break;
        for (const uri of uris.applicationScanAlertUris) {
          hashes.add(uri.findingHash);
          listed++;
          count++;
        }
      }
    }
    return { hashes, count, envId: result.scan.envId as string };
  };
  const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((h) => b.has(h));

  const overheadOn = async (target: BenchTarget, appName: string) => {
    const app = await newApp(appName, target.url);
    const alone: number[] = [];
    const hosted: number[] = [];
    const phases: Record<keyof typeof PHASES, number[]> = {
      taken: [],
      prepared: [],
      engine: [],
      reported: [],
      ended: [],
    };
    const heldMs: number[] = [];
    // CPU time (ms) of each run's processes: wapiti (with the Python that counts its crawl), the site, and hosted,
    // the agent (its pinning proxy) and the service (this process, DynamoDB Local apart).
    const cpu = { aloneWapiti: [] as number[], aloneSite: [] as number[], wapiti: [] as number[] };
    const cpuHosted = { agent: [] as number[], site: [] as number[], service: [] as number[] };
    const requestsAlone: number[] = [];
    const requestsHosted: number[] = [];
    let expected: { hashes: string[]; alertUris: number } | undefined;
    // Wapiti alone, straight to the target: its findings.
    const runAlone = async () => {
      const workDir = await mkdtemp(join(tmpdir(), 'hawk-bench-wapiti-'));
      const lines: string[] = [];
      const sentBefore = await target.requests();
      const [self0, site0] = [cpuMs('self'), cpuMs(target.pid)];
      const t0 = performance.now();
      const alerts = await engine.run({
        targetUrl: target.url,
        headers: {},
        deadline: Date.now() + 3_600_000,
        signal: new AbortController().signal,
        workDir,
        log: (line) => lines.push(line),
      });
      alone.push(performance.now() - t0);
      const [self, site] = [cpuSpent(self0, cpuMs('self')), cpuSpent(site0, cpuMs(target.pid))];
      if (self && site) {
        cpu.aloneWapiti.push(self.children);
        cpu.aloneSite.push(site.own);
      }
      requestsAlone.push((await target.requests()) - sentBefore);
      await rm(workDir, { recursive: true, force: true });
      const cut = lines.find((line) => /Max (attack|scan) time was reached/.test(line));
      if (cut) throw new Error(`wapiti alone on ${appName} was cut (${cut}): its findings are partial`);
      const aloneUris = alerts.flatMap((alert) => alert.uris.map((uri) => ({ pluginId: alert.pluginId, ...uri })));
      if (!aloneUris.length)
        throw new Error(`wapiti alone found nothing on ${appName}: ${lines.slice(-5).join(' | ')}`);
      return aloneUris;
    };
    // The hosted scan: startScan to the run's end as the service recorded it (its updatedAt), so the bench's own
    // polling adds nothing. Its device's status at the end (its scan's id).
    const runHosted = async () => {
      const hostedBefore = await target.requests();
      const [agent0, site0, service0] = [cpuMs(agent.pid), cpuMs(target.pid), process.cpuUsage()];
      const startedAt = Date.now();
      const t1 = performance.now();
      const { scanKey } = await call('POST', `/api/v1/app/${app}/perch/start`, {
        command: { command: 'START' },
        env: 'bench',
      });
      let device;
      for (;;) {
        device = (await call('GET', `/api/v1/app/${app}/perch/status`)).device;
        if (device.status !== 'RUNNING') break;
        // Once a second: the run's time is the service's record of its end, and each status read costs the service
        // (this process) and DynamoDB Local CPU that wapiti, on the same 2 cores, would wait for (polled every
        // 100 ms, 17 s of the service's CPU during a 95 s scan of the shop).
        await sleep(1000);
      }
      const seen = performance.now() - t1;
      let run = await call('GET', `/api/v1/app/${app}/perch/log?scanKey=${scanKey}`);
      if (device.status !== 'HOSTED_SCANNER_DISCONNECTED' || run.state !== 'COMPLETED')
        throw new Error(`the hosted scan of ${appName} did not complete: ${JSON.stringify(device)}\n${run.log}`);
      // The log's last upload follows the run's end.
      for (let wait = 0; !/ completed\n/.test(run.log); wait++) {
        if (wait > 100) throw new Error(`the hosted scan's log never showed its end:\n${run.log}`);
        await sleep(100);
        run = await call('GET', `/api/v1/app/${app}/perch/log?scanKey=${scanKey}`);
      }
      const endedAt = Number(run.updatedAt); // int64: a string in JSON
      const total = endedAt - startedAt;
      if (!(total > 0 && total <= seen + 50))
        throw new Error(`the run's end (${endedAt}) is not within the scan's time (${startedAt} + ${seen})`);
      hosted.push(total);
      const service = process.cpuUsage(service0);
      const [agentSpent, site] = [cpuSpent(agent0, cpuMs(agent.pid)), cpuSpent(site0, cpuMs(target.pid))];
      if (agentSpent && site) {
        cpu.wapiti.push(agentSpent.children);
        cpuHosted.agent.push(agentSpent.own);
        cpuHosted.site.push(site.own);
        cpuHosted.service.push((service.user + service.system) / 1000);
      }
      requestsHosted.push((await target.requests()) - hostedBefore);
      // BENCH_HOSTED_LOGS=<dir>: each hosted scan's run log kept there, to read its phases line by line.
      if (process.env.BENCH_HOSTED_LOGS)
        await writeFile(join(process.env.BENCH_HOSTED_LOGS, `${appName.replace(/\W+/g, '-')}-${scanKey}.log`), run.log);
      const marks = phaseMarks(run.log);
      phases.taken.push(marks.first - startedAt);
      phases.prepared.push(marks.engineStart - marks.first);
      phases.engine.push(marks.engineEnd - marks.engineStart);
      phases.reported.push(marks.completed - marks.engineEnd);
      phases.ended.push(endedAt - marks.completed);
      heldMs.push(Math.max(0, marks.released - marks.engineStart));
      return device;
    };
    for (let i = 0; i < OVERHEAD_PAIRS; i++) {
      // Which run goes first alternates from one pair to the next: a machine whose load drifts favours neither.
      let aloneUris: Awaited<ReturnType<typeof runAlone>>;
      let device: Awaited<ReturnType<typeof runHosted>>;
      if (i % 2 === 0) {
        aloneUris = await runAlone();
        device = await runHosted();
      } else {
        device = await runHosted();
        aloneUris = await runAlone();
      }

      // The same findings: the hashes of wapiti's findings alone, computed as the service computes them.
      const found = await hostedFindings(device.scanId);
      const aloneHashes = new Set(
        aloneUris.map((uri) =>
          findingHash({
            applicationId: app,
            environmentId: found.envId,
            pluginId: uri.pluginId,
            method: uri.requestMethod,
            uri: uri.uri,
            param: uri.param,
          }),
        ),
      );
      if (!sameSet(found.hashes, aloneHashes) || found.count !== aloneUris.length)
        throw new Error(
          `the hosted scan of ${appName} found ${found.count} findings (${found.hashes.size} hashes), wapiti alone ${aloneUris.length} (${aloneHashes.size} hashes): not the same findings`,
        );
      const these = { hashes: [...aloneHashes].sort(), alertUris: aloneUris.length };
      if (expected && JSON.stringify(expected) !== JSON.stringify(these))
        throw new Error(`the runs on ${appName} found different findings from one pair to the next`);
      expected = these;
    }
    const aloneMedian = median(alone);
    const hostedMedian = median(hosted);
    const cpuFigures = cpu.aloneWapiti.length === OVERHEAD_PAIRS && cpu.wapiti.length === OVERHEAD_PAIRS;
    const cpuAlone = cpuFigures ? median(cpu.aloneWapiti) + median(cpu.aloneSite) : 0;
    const cpuHostedTotal = cpuFigures
      ? median(cpu.wapiti) + median(cpuHosted.agent) + median(cpuHosted.site) + median(cpuHosted.service)
      : 0;
    return {
      site: target.description,
      engine: `wapiti ${version} (--max-attack-time ${BENCH_ATTACK_SECONDS}; modules ${BENCH_WAPITI_MODULES ?? 'all'})`,
      pairs: OVERHEAD_PAIRS,
      'findings in each run (alert URIs, distinct finding hashes; the same in every run, alone and hosted)': `${expected!.alertUris}, ${expected!.hashes.length}`,
      'requests the site answered (median: alone, hosted)': `${median(requestsAlone)}, ${median(requestsHosted)}`,
      'wapiti alone, each run (s; pairs alternate which run goes first)': alone.map(seconds).join(', '),
      'hosted scan, each run (s)': hosted.map(seconds).join(', '),
      'wapiti alone (median s)': seconds(aloneMedian),
      'hosted scan, startScan sent to the run COMPLETED as recorded (median s)': seconds(hostedMedian),
      'fixed cost (median hosted - median alone, s)': seconds(hostedMedian - aloneMedian),
      'ratio (median hosted / median alone; goal under 1.15)': Math.round((hostedMedian / aloneMedian) * 100) / 100,
      'hosted scan by phase (median ms)': Object.fromEntries(
        Object.entries(phases).map(([name, values]) => [PHASES[name as keyof typeof PHASES], ms(median(values))]),
      ),
      "the service recorded the scan, after wapiti started (median ms; the proxy holds wapiti's requests until then)":
        ms(median(heldMs)),
      // Wapiti's run in the hosted scan (its start-up and the hold included) against its run alone, spread over the
      // requests it sent: what each request costs through the pinning proxy, at most.
      'wapiti run hosted minus wapiti alone, per request the site answered (median ms)': ms(
        (median(phases.engine) - aloneMedian) / median(requestsHosted),
      ),
      // CPU time hardly moves with the machine's load, the wall time does: where the hosted scan's time goes.
      ...(cpuFigures
        ? {
            'CPU s, wapiti alone (median: wapiti, site)': `${seconds(median(cpu.aloneWapiti))}, ${seconds(median(cpu.aloneSite))}`,
            'CPU s, hosted scan (median: wapiti, the agent with its proxy, site, service)': [
              cpu.wapiti,
              cpuHosted.agent,
              cpuHosted.site,
              cpuHosted.service,
            ]
              .map((values) => seconds(median(values)))
              .join(', '),
            "the agent's CPU per request the site answered (median ms; its pinning proxy's relay included)": ms(
              median(cpuHosted.agent) / median(requestsHosted),
            ),
            'CPU ratio (hosted scan: wapiti, agent, site, service over wapiti alone: wapiti, site)':
              Math.round((cpuHostedTotal / cpuAlone) * 100) / 100,
          }
        : {}),
    };
  };
  try {
    return {
      agentOverhead: await overheadOn(small, 'bench overhead'),
      agentOverheadLargerSite: await overheadOn(shop, 'bench overhead, larger site'),
    };
  } finally {
    await agent.stop();
    await shop.close();
  }
}

/**
 * The agent as it is deployed: `hawk-scanner agent` in a process of its own, wapiti its only engine, with the
 * --max-attack-time and modules of the runs alone (HAWK_WAPITI_ATTACK_SECONDS, HAWK_WAPITI_MODULES). Ready once it
 * registered.
 */
export async function startAgentProcess(baseUrl: string, tenant: { orgId: string; apiKey: string }) {
  const cli = fileURLToPath(new URL('../../scanner/bin/hawk-scanner.mjs', import.meta.url));
  const child = spawn(
    process.execPath,
    [
      // BENCH_AGENT_CPU_PROF=<dir>: the agent's CPU profile written there when it stops (node --cpu-prof).
      ...(process.env.BENCH_AGENT_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_AGENT_CPU_PROF}`] : []),
      cli,
      'agent',
      ...['--org', tenant.orgId, '--url', baseUrl, '--name', 'bench agent'],
    ],
    {
      env: {
        ...process.env,
        HAWK_API_KEY: tenant.apiKey,
        HAWK_ENGINE: 'wapiti',
        HAWK_WAPITI_ATTACK_SECONDS: String(BENCH_ATTACK_SECONDS),
        ...(BENCH_WAPITI_MODULES ? { HAWK_WAPITI_MODULES: BENCH_WAPITI_MODULES } : {}),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Its output (each run's log, echoed) is read as it comes, the last lines kept for an error.
  const tail: string[] = [];
  let partial = '';
  const registered = new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (/registered as device/.test(line)) resolve();
        tail.push(line);
        if (tail.length > 20) tail.shift();
      }
    });
    child.once('error', reject);
    void exited.then((code) => reject(new Error(`the agent exited (${code}): ${tail.join(' | ')}`)));
  });
  await registered;
  return {
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * What the retest and authorization sections start with: a bench tenant allowed to scan loopback, its API calls, the
 * shop in a process of its own, the command line's agent, and a CLOUD application of the shop (`name`).
 */
export async function hostedShop(ctx: BenchContext, name: string) {
  const { allowScanDomain } = await import('../../shared/applications/scan-domains.ts');
  const tenant = await benchTenant(ctx, name);
  await allowScanDomain(tenant.orgId, '127.0.0.1');
  const call: Call = async (method, path, body) => {
    const response = await fetch(`${ctx.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : {};
  };
  const shop = await startTargetProcess('shop');
  const agent = await startAgentProcess(ctx.baseUrl, tenant);
  try {
    const app = (
      await call('POST', `/api/v1/org/${tenant.orgId}/app`, {
        name: `bench ${name}`,
        env: 'bench',
        applicationType: 'CLOUD',
        cloudScanTargetURL: shop.url,
      })
    ).applicationId as string;
    const close = async () => {
      await agent.stop();
      await shop.close();
    };
    return { tenant, call, shop, app, close };
  } catch (error) {
    await agent.stop();
    await shop.close();
    throw error;
  }
}
