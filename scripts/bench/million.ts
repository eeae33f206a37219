import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchLogin, benchTenant, measure, type BenchSection, type Timing } from './harness.ts';
import { seed } from './lists.ts';
import { alertsOf, Seeder, type ScanToPublish } from './million-seed.ts';
import { readRuns, RESULTS_DIR, runSource } from './record.ts';

// A million findings: one organization with 2,000 environments (400 applications of 5, seeded as the
// lists section seeds them, unscanned), grown to 10,000, 100,000 and 1,000,000 findings (BENCH_MILLION_SIZES, e.g.
// `BENCH_MILLION_SIZES=10000,100000 npm run bench -- million`; BENCH_MILLION_ENVIRONMENTS changes the 2,000). Each
// size is one more completed scan in every environment, reporting size / 2,000 findings, a superset of its previous
// one's, published as the service publishes an import (scripts/bench/million-seed.ts). One more environment holds
// two scans of 10,000 findings (the second: 500 fixed, 500 new), for the SARIF export, the scan diff and a triage of
// 100 of its findings. At each size: p50/p95 through the HTTP API, and one request's DynamoDB calls and read units
// (the second of two: the steady state), of the findings report (first and last page of 1,000, JSON and CSV), the
// overview and trends, the V2 lists, the triage, the SARIF export and the diff; and the peak RSS of this process
// (the local server runs in it) and of DynamoDB Local while measuring. The goal: read units and calls flat from 10k
// to 1M for every page read, memory bounded, no request over 1 s at 1M.
const SIZES = (process.env.BENCH_MILLION_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const ENVIRONMENTS = Number(process.env.BENCH_MILLION_ENVIRONMENTS ?? 2000);
const PARALLEL = Number(process.env.BENCH_MILLION_PARALLEL ?? 8);
const BIG = 10_000;
const BIG_CHANGE = 500;
const PAGE_SIZE = 1000;

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** The peak resident memory (MB) of DynamoDB Local, the java process this one started (VmHWM), if found. */
function dynamodbPeakRssMb(): number | undefined {
  try {
    const children = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
    const pids = children
      .split('\n')
      .filter((line) => line.includes('java'))
      .map((line) => line.trim().split(/\s+/)[0]);
    const peaks = pids.map((pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]));
    return peaks.length ? Math.round(Math.max(...peaks) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** One size's figures, as the section records them. */
interface SizeFigures {
  findings: number;
  seed: { items: number; seconds: number; itemsPerSecond: number };
  requests: Record<string, Probe>;
  memoryMb: { serverProcessRssPeak: number; heapPeak: number; dynamodbLocalRssPeak?: number };
}

/** One column of bench-results/million.md: a size's figures and the run they come from. */
interface Column {
  size: number;
  figures: SizeFigures;
  source: string;
}

/**
 * Each size's newest figures: this run's, else those of the newest run file of a clean tree that measured it (a 1M
 * seed takes most of an hour, so a run may measure one size alone and the table keeps the others).
 */
function tableColumns(current: Record<string, SizeFigures>, commit: string): Column[] {
  const columns = new Map<number, Column>();
  for (const { file, run } of readRuns()) {
    if (run.source.dirty) continue;
    for (const [size, figures] of Object.entries(run.sections.million ?? {}))
      if (/^\d+$/.test(size))
        columns.set(Number(size), {
          size: Number(size),
          figures: figures as SizeFigures,
          source: `${run.source.commit.slice(0, 10)}, runs/${file}`,
        });
  }
  for (const [size, figures] of Object.entries(current))
    if (/^\d+$/.test(size))
      columns.set(Number(size), { size: Number(size), figures, source: `${commit.slice(0, 10)}, this run` });
  return [...columns.values()].sort((a, b) => a.size - b.size);
}

/** million.md from the run files alone (`npm run bench -- --rebuild-latest`). */
export const writeMillionTable = () => writeTable(tableColumns({}, ''));

/** bench-results/million.md: one row per request, one column per size (p50 / p95 ms, calls, read units). */
function writeTable(columns: Column[]): void {
  const cell = (p: Probe | undefined) =>
    !p
      ? ''
      : p.failed
        ? `failed: ${p.failed.slice(0, 80)}`
        : `${p.p50Ms} / ${p.p95Ms} ms, ${p.dynamodbCalls} calls, ${p.readUnits} RU${p.writeUnits ? `, ${p.writeUnits} WU` : ''}`;
  // Rows by name, with the page numbers (which change with the size) left out of the name.
  const rowName = (name: string) => name.replace(/ \(\d+\)$/, '').replace(/ \(\d+ findings\)$/, '');
  const names = [...new Set(columns.flatMap((c) => Object.keys(c.figures.requests).map(rowName)))];
  const find = (c: Column, name: string) =>
    Object.entries(c.figures.requests).find(([key]) => rowName(key) === name)?.[1];
  const row = (name: string, value: (c: Column) => string) => `| ${name} | ${columns.map(value).join(' | ')} |`;
  const lines = [
    '# A million findings',
    '',
    `Written by \`npm run bench -- million\` (scripts/bench/million.ts), ${new Date().toISOString()}. Each column is`,
    'the newest run that measured its size (the run row names it: a run may measure one size alone).',
    "Each cell: p50 / p95 latency through the HTTP API, then one request's DynamoDB calls and read units (RU).",
    `One run on a shared 2-core machine: latencies are rough, calls and units exact. Goal: calls and read`,
    'units flat from 10k to 1M for every page read, memory bounded, no request over 1 s at 1M.',
    '',
    `| request | ${columns.map((c) => `${c.size.toLocaleString('en')} findings`).join(' | ')} |`,
    `|---|${columns.map(() => '---|').join('')}`,
    row('run', (c) => c.source),
    ...names.map((name) => row(name, (c) => cell(find(c, name)))),
    row(
      'peak RSS: server process (with seeder and client) / DynamoDB Local',
      (c) => `${c.figures.memoryMb.serverProcessRssPeak} / ${c.figures.memoryMb.dynamodbLocalRssPeak ?? '?'} MB`,
    ),
    row(
      'seed so far: items, items/s',
      (c) => `${c.figures.seed.items.toLocaleString('en')}, ${c.figures.seed.itemsPerSecond}/s`,
    ),
    '',
  ];
  writeFileSync(join(RESULTS_DIR, 'million.md'), lines.join('\n'));
}

interface Probe extends Partial<Timing> {
  dynamodbCalls?: number;
  dynamodbRoundTrips?: number;
  readUnits?: number;
  writeUnits?: number;
  bytes?: number;
  failed?: string;
}

const section: BenchSection = {
  name: 'million',
  async run(ctx) {
    if (SIZES.some((size) => size % ENVIRONMENTS !== 0 || size <= 0))
      throw new Error(`BENCH_MILLION_SIZES must be multiples of ${ENVIRONMENTS}: ${SIZES.join(',')}`);
    const { scopeObservers } = await import('../../shared/context/request-scope.ts');
    const tenant = await benchTenant(ctx, 'million');
    const { orgId, userId } = tenant;
    // A token lasts an hour and the 1M seed takes longer: each size logs in again before it measures.
    let { token } = tenant;
    const call = async (method: string, path: string, accept = 'application/json', body?: unknown) => {
      const response = await fetch(`${ctx.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
      return text;
    };

    /** One request's figures (the second of two), then `n` timed ones. */
    const probe = async (request: () => Promise<string>, n: number, warmup: number): Promise<Probe> => {
      try {
        await request();
        const scopes: import('../../shared/context/request-scope.ts').RequestScope[] = [];
        scopeObservers.push((scope) => scopes.push({ ...scope }));
        const bytes = (await request()).length;
        scopeObservers.length = 0;
        const timing = await measure(request, n, warmup);
        const [scope] = scopes;
        return {
          ...timing,
          dynamodbCalls: scope?.dynamodbCalls,
          dynamodbRoundTrips: scope?.dynamodbRoundTrips,
          readUnits: Math.round((scope?.readUnits ?? 0) * 10) / 10,
          ...(scope?.writeUnits ? { writeUnits: Math.round(scope.writeUnits * 10) / 10 } : {}),
          bytes,
        };
      } catch (error) {
        scopeObservers.length = 0;
        return { failed: (error as Error).message.slice(0, 300) };
      }
    };

    // The SARIF, diff and triage environment (created before the seed makes the member one of a team it does not
    // write): two scans of 10,000 findings.
    const bigApp = JSON.parse(
      await call('POST', `/api/v1/org/${orgId}/app`, 'application/json', {
        name: 'million-sarif',
        env: 'big',
      }),
    );
    const bigEnvId = JSON.parse(await call('GET', `/api/v1/app/${bigApp.applicationId}/env/list`)).environments[0]
      .environmentId as string;
    const big = { applicationId: bigApp.applicationId as string, environmentId: bigEnvId };
    ctx.progress(`seeding ${ENVIRONMENTS} environments (unscanned)`);
    const { environments } = await seed(ctx, orgId, userId, ENVIRONMENTS, { label: 'million', lastScans: false });
    // Environment e of every application, then e + 1: environments published together are of different applications.
    const byPosition = environments
      .map((env, i) => ({ env, order: (i % 5) * environments.length + i }))
      .sort((a, b) => a.order - b.order)
      .map(({ env }) => env);
    const seeder = new Seeder(ctx, userId, PARALLEL);
    await seeder.load();

    await seeder.publish([{ ...big, report: () => alertsOf(0, BIG, 20) }], 'big environment, scan 1');
    const [bigScanId] = await seeder.publish(
      [{ ...big, report: () => alertsOf(BIG_CHANGE, BIG + BIG_CHANGE, 20) }],
      'big environment, scan 2',
    );
    const hashes = JSON.parse(
      await call('GET', `/api/v1/scan/${bigScanId}/alert/${alertsOf(0, 1)[0].pluginId}?pageSize=100`),
    ).applicationScanAlertUris.map((u: { findingHash: string }) => u.findingHash) as string[];

    const results: Record<string, unknown> = {
      dataSet: `${ENVIRONMENTS} environments in ${ENVIRONMENTS / 5} applications, one more completed scan in each per size (a superset of its previous one), + 1 environment with 2 scans of ${BIG} findings (SARIF, diff, triage); each URI its own finding and issue (runs before 2026-12-03T15 seeded numeric paths, which made every URI of a plugin one finding)`,
      note: 'one run on a shared, busy 2-core machine (7 other sessions): rough figures. The local server runs in the bench process (its RSS includes the seeder and the client).',
    };
    let round = 0;
    for (const size of SIZES) {
      const perEnv = size / ENVIRONMENTS;
      const scans: ScanToPublish[] = byPosition.map((env) => ({ ...env, report: () => alertsOf(0, perEnv) }));
      // The first environment's new scan: its diff against its previous one.
      const [envScanId] = await seeder.publish(scans, `${size} findings (${perEnv} per environment)`);
      ctx.progress(`${size}: measuring`);
      token = await benchLogin(ctx, tenant.apiKey);
      const peak = { rss: 0, heap: 0 };
      const sample = () => {
        const m = process.memoryUsage();
        peak.rss = Math.max(peak.rss, m.rss);
        peak.heap = Math.max(peak.heap, m.heapUsed);
      };
      const sampler = setInterval(sample, 25);
      const started = performance.now();
      const total = size + BIG;
      const lastPage = Math.ceil(total / PAGE_SIZE) - 1;
      const report = (page: number, accept: string) => () =>
        call('GET', `/api/v1/reports/org/${orgId}/findings?pageSize=${PAGE_SIZE}&pageToken=${page}`, accept);
      const get = (path: string) => () => call('GET', path);
      const figures: Record<string, Probe> = {};
      figures['report JSON first page'] = await probe(report(0, 'application/json'), 5, 1);
      figures[`report JSON last page (${lastPage})`] = await probe(report(lastPage, 'application/json'), 5, 1);
      figures['report CSV first page'] = await probe(report(0, 'text/csv'), 5, 1);
      figures[`report CSV last page (${lastPage})`] = await probe(report(lastPage, 'text/csv'), 5, 1);
      figures.overview = await probe(get(`/api/v1/org/${orgId}/overview`), 10, 1);
      figures['trends 90 days'] = await probe(get(`/api/v1/org/${orgId}/trends?days=90`), 20, 2);
      figures['V2 envs page 10'] = await probe(get(`/api/v2/org/${orgId}/envs?pageSize=10`), 20, 2);
      figures['V2 envs by findings DESC'] = await probe(
        get(`/api/v2/org/${orgId}/envs?pageSize=10&sortField=scanFindingsCounts&sortDir=DESC`),
        20,
        2,
      );
      figures['V2 apps page 10'] = await probe(get(`/api/v2/org/${orgId}/apps?pageSize=10`), 20, 2);
      figures['triage 100 findings'] = await probe(
        () => {
          // Each request moves every finding's status (runs before 2026-12-04T15 gave each finding its status of
          // the request before: they measured a re-triage that moves none).
          const status = round++ % 2 ? 'RISK_ACCEPTED' : 'FALSE_POSITIVE';
          return call(
            'POST',
            `/api/v1/org/${orgId}/app/${big.applicationId}/env/${big.environmentId}/findings/triage`,
            'application/json',
            { actions: hashes.map((findingHash) => ({ findingHash, status, note: 'bench' })) },
          );
        },
        5,
        1,
      );
      figures[`SARIF of a ${BIG}-finding scan`] = await probe(get(`/api/v1/scan/${bigScanId}/sarif`), 5, 1);
      figures[`diff of ${BIG}-finding scans`] = await probe(get(`/api/v1/scan/${bigScanId}/diff`), 5, 1);
      if (envScanId)
        figures[`diff of an environment's scans (${perEnv} findings)`] = await probe(
          get(`/api/v1/scan/${envScanId}/diff`),
          10,
          1,
        );
      clearInterval(sampler);
      sample();
      const slowest = Object.entries(figures)
        .filter(([, f]) => f.p95Ms !== undefined)
        .sort(([, a], [, b]) => b.p95Ms! - a.p95Ms!)[0];
      results[String(size)] = {
        findings: total,
        seed: {
          items: seeder.items,
          seconds: Math.round(seeder.seconds),
          itemsPerSecond: Math.round(seeder.items / seeder.seconds),
        },
        requests: figures,
        slowestP95: slowest && { request: slowest[0], p95Ms: slowest[1].p95Ms },
        memoryMb: {
          serverProcessRssPeak: mb(peak.rss),
          heapPeak: mb(peak.heap),
          dynamodbLocalRssPeak: dynamodbPeakRssMb(),
        },
        measuringSeconds: Math.round((performance.now() - started) / 1000),
      };
      // Each size's figures on stderr too, so that a run stopped at a later size keeps them.
      ctx.progress(`${size}: ${JSON.stringify(results[String(size)])}`);
      // The table after each size, so that a run stopped at a later size keeps the sizes it measured.
      writeTable(tableColumns(results as unknown as Record<string, SizeFigures>, runSource().commit));
    }
    return results;
  },
};

export default section;
