import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchTenant, type BenchContext, type BenchSection } from './harness.ts';

// ZAP report import figures (docs/IMPORTS.md): throughput in instances (findings) per second and peak memory, for the
// largest real sample (scanner/test/fixtures/zap) and a generated report of 50,000 instances (BENCH_IMPORT_INSTANCES
// to change it), through the import operation (the local server runs in this process: its RSS is sampled) and
// through the CLI (`hawk-scanner import`, a child process: its peak RSS is read from /proc). The operation takes at
// most 10,000 instances and 4 MiB (shared/limits.ts IMPORT_LIMITS): generated reports go through it at each limit.
const INSTANCES = Number(process.env.BENCH_IMPORT_INSTANCES ?? 50_000);
const ROOT = new URL('../../', import.meta.url).pathname;
const LARGEST_SAMPLE = 'zap-json_2.11.1_itsecgames_bcgov.json';

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const perSecond = (n: number, ms: number) => Math.round((n / ms) * 1000);

/**
 * A traditional XML report as ZAP 2.11+ writes it: 50 alerts, `instances` findings spread over them, each with a
 * short request and response header (xml-plus), distinct URIs.
 */
export function generatedReport(instances: number, messages = true): string {
  const alerts = 50;
  const parts = [
    '<?xml version="1.0"?>\n<OWASPZAPReport programName="ZAP" version="2.16.1" generated="bench">\n<site name="https://bench.test" host="bench.test" port="443" ssl="true"><alerts>',
  ];
  for (let a = 0; a < alerts; a++) {
    const count = Math.floor(instances / alerts) + (a < instances % alerts ? 1 : 0);
    parts.push(
      `<alertitem><pluginid>${10000 + a}</pluginid><alertRef>${10000 + a}</alertRef><alert>Bench alert ${a}</alert><name>Bench alert ${a}</name>` +
        `<riskcode>${a % 4}</riskcode><confidence>2</confidence><riskdesc>x</riskdesc><desc>&lt;p&gt;Generated alert ${a}.&lt;/p&gt;</desc><instances>`,
    );
    for (let i = 0; i < count; i++) {
      const uri = `https://bench.test/items/${a}/${i}?q=${i}`;
      parts.push(
        `<instance><uri>${uri.replace(/&/g, '&amp;')}</uri><method>GET</method><param>q</param><attack></attack><evidence>evidence ${i}</evidence><otherinfo></otherinfo>` +
          (messages
            ? `<requestheader>GET ${uri} HTTP/1.1\r\nHost: bench.test\r\nUser-Agent: bench\r\n\r\n</requestheader><requestbody></requestbody>` +
              `<responseheader>HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 20\r\n\r\n</responseheader><responsebody>&lt;html&gt;${i}&lt;/html&gt;</responsebody>`
            : '') +
          '</instance>',
      );
    }
    parts.push(
      `</instances><count>${count}</count><solution>&lt;p&gt;Fix it.&lt;/p&gt;</solution><cweid>${16 + a}</cweid><wascid>15</wascid><sourceid>3</sourceid></alertitem>`,
    );
  }
  parts.push('</alerts></site></OWASPZAPReport>\n');
  return parts.join('');
}

/** Runs `work` while sampling this process's RSS every 20 ms: wall time and the peak RSS above the RSS before. */
export async function withRss<T>(
  work: () => Promise<T>,
): Promise<{ result: T; ms: number; peakRssMb: number; rssBeforeMb: number }> {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const start = performance.now();
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, ms: performance.now() - start, peakRssMb: mb(peak), rssBeforeMb: mb(before) };
  } finally {
    clearInterval(timer);
  }
}

/** The CLI as a child process: wall time, exit code, and its peak RSS (VmHWM of /proc/<pid>/status, polled). */
function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; ms: number; peakRssMb: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [join(ROOT, 'scanner/bin/hawk-scanner.mjs'), 'import', ...args], {
      env: { PATH: process.env.PATH!, ...env },
    });
    let stdout = '';
    let stderr = '';
    let hwmKb = 0;
    const poll = setInterval(() => {
      try {
        const match = readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
        if (match) hwmKb = Math.max(hwmKb, Number(match[1]));
      } catch {
        // exited between two polls
      }
    }, 25);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ code, ms: performance.now() - start, peakRssMb: mb(hwmKb * 1024), stdout, stderr });
    });
  });
}

export async function importThroughOperation(
  ctx: BenchContext,
  token: string,
  appId: string,
  env: string,
  report: string | Buffer,
  contentType: string,
) {
  const measured = await withRss(async () => {
    const response = await fetch(`${ctx.baseUrl}/api/v1/app/${appId}/scan/import?env=${env}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body: report as BodyInit,
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`import: ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as { urisImported: number; alertsImported: number };
  });
  const { urisImported, alertsImported } = measured.result;
  return {
    bytes: Buffer.byteLength(report),
    alerts: alertsImported,
    instances: urisImported,
    ms: Math.round(measured.ms),
    instancesPerSecond: perSecond(urisImported, measured.ms),
    serverRssBeforeMb: measured.rssBeforeMb,
    serverPeakRssMb: measured.peakRssMb,
  };
}

async function importThroughCli(
  ctx: BenchContext,
  apiKey: string,
  appId: string,
  env: string,
  file: string,
  instances: number,
) {
  const stateDir = mkdtempSync(join(tmpdir(), 'hawk-bench-import-'));
  try {
    const measured = await withRss(() =>
      runCli(['--app', appId, '--env', env, file], {
        HAWK_API_KEY: apiKey,
        HAWK_API_URL: ctx.baseUrl,
        HAWK_STATE_DIR: stateDir,
      }),
    );
    const run = measured.result;
    if (run.code !== 0) throw new Error(`CLI import exited ${run.code}: ${run.stderr.slice(-500)}`);
    return {
      instances,
      ms: Math.round(run.ms),
      instancesPerSecond: perSecond(instances, run.ms),
      cliPeakRssMb: run.peakRssMb,
      serverPeakRssMb: measured.peakRssMb,
      summary: run.stdout.trim(),
    };
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/**
 * An import of `report` into the existing environment `env` whose publishing transaction fails (the failure is
 * injected on the client once every item went to the table): the time from that failure to the 413/500 reaching the
 * caller is the time the import takes to remove what it wrote (its scan's alert, URI and message items) and put the
 * environment's finding records back. Checked afterwards: no item of the scan is left.
 */
async function failedPublishRemoval(appId: string, userId: string, env: string, report: string) {
  const { db } = await import('../../shared/db/client.ts');
  const { keys } = await import('../../shared/db/keys.ts');
  const { queryAll } = await import('../../shared/db/query.ts');
  const { importScanReport } = await import('../../shared/scans/import.ts');
  const { createCaller } = await import('../../shared/identity/caller.ts');
  const { actorNames } = await import('../../shared/identity/user-repository.ts');
  const { IMPORT_LIMITS } = await import('../../shared/limits.ts');
  let failedAt = 0;
  let scan: { environmentId: string; scanId: string } | undefined;
  const name = 'benchFailedPublish';
  db.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { TransactItems?: { Put?: { Item: Record<string, unknown> } }[] };
      // The input as given (plain values) or already marshalled ({ S: ... }), whichever this step sees.
      const plain = (value: unknown) =>
        typeof value === 'object' && value && 'S' in value ? (value as { S: string }).S : value;
      const scanPut = input.TransactItems?.map((t) => t.Put?.Item).find(
        (item) => item && plain(item.entity) === 'scan',
      );
      if (scanPut) {
        scan = { environmentId: String(plain(scanPut.environmentId)), scanId: String(plain(scanPut.scanId)) };
        failedAt = performance.now();
        throw Object.assign(new Error('bench: publishing refused'), { name: 'BenchPublishFailure' });
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    // A deadline well past the budget: what is measured is the removal, not whether a busy machine fits the 20 s.
    const answer = await importScanReport(
      createCaller({ userId, apiKeyId: 'key' }, 'write:scan', await actorNames(userId)),
      appId,
      env,
      Buffer.from(report),
      Date.now() + 10 * IMPORT_LIMITS.budgetMs,
    ).then(
      () => 'published',
      (error: Error) => error.message,
    );
    const removalMs = performance.now() - failedAt;
    if (!scan || answer !== 'bench: publishing refused')
      throw new Error(`the failed publish did not happen as planned: ${answer}`);
    const data = keys.dataOfScan(appId, scan.environmentId, scan.scanId);
    const left = (await queryAll({ partition: data.pk, skPrefix: data.skPrefix })).length;
    if (left) throw new Error(`${left} items of the unpublished scan are left`);
    return { removalMs: Math.round(removalMs), itemsLeft: left };
  } finally {
    db.middlewareStack.remove(name);
  }
}

const section: BenchSection = {
  name: 'import',
  async run(ctx) {
    const { IMPORT_LIMITS } = await import('../../shared/limits.ts');
    const { orgId, userId, apiKey, token } = await benchTenant(ctx, 'import');
    const create = await fetch(`${ctx.baseUrl}/api/v1/org/${orgId}/app`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'import bench' }),
    });
    const { applicationId: appId } = (await create.json()) as { applicationId: string };
    const dir = mkdtempSync(join(tmpdir(), 'hawk-bench-reports-'));
    try {
      const samplePath = join(ROOT, 'scanner/test/fixtures/zap', LARGEST_SAMPLE);
      const sample = readFileSync(samplePath);
      ctx.progress(`import: ${LARGEST_SAMPLE} through the operation`);
      // A first import warms the function up (its module graph and the parser); the second is measured.
      await importThroughOperation(ctx, token, appId, 'warmup', sample, 'application/json');
      const sampleOperation = await importThroughOperation(ctx, token, appId, 'sample-op', sample, 'application/json');
      ctx.progress(`import: ${LARGEST_SAMPLE} through the CLI`);
      const sampleCli = await importThroughCli(ctx, apiKey, appId, 'sample-cli', samplePath, sampleOperation.instances);

      // The operation's limits: 10,000 instances (reached by a report without requests and responses) and 4 MiB
      // (which an xml-plus report of this shape reaches first).
      const lean = generatedReport(IMPORT_LIMITS.maxUris, false);
      ctx.progress(
        `import: generated report of ${IMPORT_LIMITS.maxUris} instances without messages (${Math.round(lean.length / 1024)} KiB) through the operation`,
      );
      const leanOperation = await importThroughOperation(
        ctx,
        token,
        appId,
        'generated-lean-op',
        lean,
        'application/xml',
      );
      ctx.progress(
        `import: the same report again into that environment, its publishing failing: the time to remove what it wrote`,
      );
      const failedPublish = {
        instances: IMPORT_LIMITS.maxUris,
        ...(await failedPublishRemoval(appId, userId, 'generated-lean-op', lean)),
      };
      let fitting = Math.floor(
        (IMPORT_LIMITS.maxUris * IMPORT_LIMITS.maxBytes) / Buffer.byteLength(generatedReport(IMPORT_LIMITS.maxUris)),
      );
      while (Buffer.byteLength(generatedReport(fitting)) > IMPORT_LIMITS.maxBytes) fitting -= 50;
      ctx.progress(`import: generated xml-plus report of ${fitting} instances (4 MiB) through the operation`);
      const plusOperation = await importThroughOperation(
        ctx,
        token,
        appId,
        'generated-plus-op',
        generatedReport(fitting),
        'application/xml',
      );

      const bigPath = join(dir, 'generated.xml');
      writeFileSync(bigPath, generatedReport(INSTANCES));
      const tooBig = await fetch(`${ctx.baseUrl}/api/v1/app/${appId}/scan/import?env=refused`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/xml' },
        body: readFileSync(bigPath) as unknown as BodyInit,
      });
      ctx.progress(
        `import: generated report of ${INSTANCES} instances through the CLI (the operation answers ${tooBig.status})`,
      );
      const generatedCli = await importThroughCli(ctx, apiKey, appId, 'generated-cli', bigPath, INSTANCES);
      return {
        note:
          'instancesPerSecond = findings stored and published / wall time of the whole import (operation: one request; CLI: process start, parse, ' +
          'scan start, batches of 2,000, completion). serverPeakRssMb: RSS of this process (local server and DynamoDB Local client; DynamoDB Local is a separate JVM), ' +
          'sampled every 20 ms; cliPeakRssMb: VmHWM of the CLI process. failedPublishAtInstanceLimit.removalMs: the report at the instance limit imported again into ' +
          "the same environment with its publishing transaction failing (injected on the client): from that failure to the error, i.e. deleting the scan's " +
          "10,000 URI items and 50 alerts and putting the environment's 50 finding records back; itemsLeft: the scan's items found afterwards.",
        largestSample: { file: LARGEST_SAMPLE, operation: sampleOperation, cli: sampleCli },
        generated: {
          operationAtInstanceLimit: { messages: false, ...leanOperation },
          failedPublishAtInstanceLimit: failedPublish,
          operationAtByteLimit: { messages: true, ...plusOperation },
          [`operationAt${INSTANCES}`]: {
            bytes: Buffer.byteLength(readFileSync(bigPath)),
            status: tooBig.status,
            answer: (await tooBig.text()).slice(0, 300),
          },
          cli: { bytes: Buffer.byteLength(readFileSync(bigPath)), ...generatedCli },
        },
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default section;
