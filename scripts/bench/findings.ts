import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { benchTenant, measure, type BenchSection } from './harness.ts';

// Findings figures (docs/DATA-MODEL.md, Findings): one bulk triage of 100 actions (through the HTTP API), and the
// organization findings report of an organization with 100,000 current findings (BENCH_FINDINGS to change it): first
// page and a deep page, JSON and CSV, time to the response headers and to the whole body, every page walked, and the
// process memory (the local server runs in this process). The report's data is seeded with the repositories' batch
// writes (scan records, alerts, URIs, messages and finding items as the reporting path writes them), not through HTTP.
const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 100_000);
const ENVIRONMENTS = 50;
const PLUGINS = 20;
const PAGE_SIZE = 1000;

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

const section: BenchSection = {
  name: 'findings',
  async run(ctx) {
    const { batchPut } = await import('../../shared/db/query.ts');
    const { keys } = await import('../../shared/db/keys.ts');
    const { findingHash, normalizedPath } = await import('../../shared/results/model.ts');
    const { orgId, userId, token } = await benchTenant(ctx, 'findings');

    const call = async (method: string, path: string, body?: unknown, accept = 'application/json') => {
      const start = performance.now();
      const response = await fetch(`${ctx.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const headersMs = performance.now() - start;
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
      return { text, headersMs, totalMs: performance.now() - start, json: () => JSON.parse(text) };
    };

    // ---- Triage of 100 actions
    ctx.progress('triage: a scan with 100 findings');
    const triageApp = (await call('POST', `/api/v1/org/${orgId}/app`, { name: 'triage', env: 'dev' })).json();
    const started = (
      await call('POST', `/api/v1/app/${triageApp.applicationId}/scan`, {
        env: 'dev',
        config: 'app:\n  env: dev\n',
        host: 'https://t.test',
      })
    ).json();
    const uris = Array.from({ length: 100 }, (_, i) => ({
      uri: `/page${i}`,
      requestMethod: 'GET',
      param: 'q',
      evidence: 'e',
    }));
    await call('POST', `/api/v1/scan/${started.scanId}/alerts`, {
      alerts: [{ pluginId: '40018', name: 'SQLi', severity: 'High', uris }],
    });
    await call('POST', `/api/v1/scan/${started.scanId}/complete`, { status: 'COMPLETED' });
    const hashes = (await call('GET', `/api/v1/scan/${started.scanId}/alert/40018?pageSize=100`))
      .json()
      .applicationScanAlertUris.map((u: { findingHash: string }) => u.findingHash);
    let round = 0;
    const triagePath = `/api/v1/org/${orgId}/app/${triageApp.applicationId}/env/${started.envId}/findings/triage`;
    const triage100 = await measure(
      async () => {
        const status = round++ % 2 ? 'RISK_ACCEPTED' : 'FALSE_POSITIVE';
        await call('POST', triagePath, {
          actions: hashes.map((findingHash: string) => ({ findingHash, status, note: 'bench' })),
        });
      },
      5,
      1,
    );

    // ---- The report's organization: ENVIRONMENTS environments, each with one completed scan of its share.
    ctx.progress(`report: seeding ${FINDINGS} findings in ${ENVIRONMENTS} environments`);
    const perEnv = Math.ceil(FINDINGS / ENVIRONMENTS);
    const perPlugin = Math.ceil(perEnv / PLUGINS);
    const seedStart = performance.now();
    let seeded = 0;
    for (let e = 0; e < ENVIRONMENTS && seeded < FINDINGS; e++) {
      const app = (
        await call('POST', `/api/v1/org/${orgId}/app`, { name: `app-${String(e).padStart(3, '0')}`, env: 'prod' })
      ).json();
      const appId = app.applicationId as string;
      const envId = (await call('GET', `/api/v1/app/${appId}/env/list`)).json().environments[0].environmentId as string;
      const scanId = randomUUID();
      const startedAt = Date.now() - 60_000;
      const count = Math.min(perEnv, FINDINGS - seeded);
      const items: Record<string, unknown>[] = [];
      const bySeverity = { High: 0, Medium: 0, Low: 0 };
      const alertsBySeverity = { High: 0, Medium: 0, Low: 0 };
      for (let p = 0; p * perPlugin < count; p++) {
        const pluginId = String(10_000 + p);
        const severity = (['High', 'Medium', 'Low'] as const)[p % 3];
        const n = Math.min(perPlugin, count - p * perPlugin);
        bySeverity[severity] += n;
        alertsBySeverity[severity] += 1;
        items.push({
          ...keys.scanAlert(appId, envId, scanId, pluginId),
          entity: 'scanAlert',
          pluginId,
          name: `Plugin ${pluginId}`,
          severity,
          description: 'd'.repeat(300),
          cweId: '79',
          references: [],
          uriCount: n,
          nextUri: n,
        });
        for (let i = 0; i < n; i++) {
          const uri = `/api/things/page${p}x${i}`;
          const hash = findingHash({
            applicationId: appId,
            environmentId: envId,
            pluginId,
            method: 'GET',
            uri,
            param: 'q',
          });
          const msgId = randomUUID();
          const shared = {
            alertUriId: randomUUID(),
            msgId,
            pluginId,
            uri,
            requestMethod: 'GET',
            param: 'q',
            findingHash: hash,
          };
          items.push({ ...keys.alertUri(appId, envId, scanId, pluginId, i), entity: 'alertUri', n: i, ...shared });
          items.push({
            ...keys.alertMessage(appId, envId, scanId, msgId),
            entity: 'alertMessage',
            ...shared,
            evidence: 'evidence, "quoted"',
            otherInfo: '',
            requestHeader: '',
            requestBody: '',
            responseHeader: '',
            responseBody: '',
          });
          items.push({
            ...keys.finding(appId, envId, hash),
            entity: 'finding',
            findingHash: hash,
            pluginId,
            requestMethod: 'GET',
            path: normalizedPath(uri),
            param: 'q',
            uri,
            severity,
            firstSeen: startedAt,
            lastSeen: startedAt,
            lastScanId: scanId,
            lastScanUris: 1,
          });
        }
      }
      const stats = {
        totalAlerts: count,
        uniqueAlerts: alertsBySeverity.High + alertsBySeverity.Medium + alertsBySeverity.Low,
        urisBySeverity: bySeverity,
        alertsBySeverity,
      };
      items.push({
        ...keys.scan(orgId, appId, envId, scanId, startedAt),
        entity: 'scan',
        ownedKey: keys.scanLocation(scanId),
        scanId,
        organizationId: orgId,
        applicationId: appId,
        environmentId: envId,
        envName: 'prod',
        status: 'COMPLETED',
        userId,
        startedAt,
        completedAt: startedAt + 30_000,
        durationSeconds: 30,
        urlCount: count,
        hawkscanVersion: '4.0.0',
        host: 'https://target.test',
        tags: [],
        configHash: '0'.repeat(64),
        reportedUris: count,
        stats,
      });
      items.push({
        ...keys.scanLocation(scanId),
        entity: 'scanLocation',
        scanId,
        applicationId: appId,
        environmentId: envId,
      });
      await batchPut(items, 16);
      seeded += count;
      if ((e + 1) % 10 === 0) ctx.progress(`seeded ${seeded}/${FINDINGS}`);
    }
    const seedSeconds = Math.round((performance.now() - seedStart) / 1000);

    // ---- Report figures
    const peak = { rss: 0, heap: 0 };
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peak.rss = Math.max(peak.rss, m.rss);
      peak.heap = Math.max(peak.heap, m.heapUsed);
    }, 20);
    const before = process.memoryUsage();
    const reportPath = (page: number) =>
      `/api/v1/reports/org/${orgId}/findings?pageSize=${PAGE_SIZE}&pageToken=${page}`;
    const pages = Math.ceil(FINDINGS / PAGE_SIZE);
    const one = async (page: number, accept: string) => {
      const out = await call('GET', reportPath(page), undefined, accept);
      return { headersMs: Math.round(out.headersMs), totalMs: Math.round(out.totalMs), bytes: out.text.length };
    };
    ctx.progress('report: first and last pages');
    const firstJson = await one(0, 'application/json');
    const lastJson = await one(pages - 1, 'application/json');
    const firstCsv = await one(0, 'text/csv');
    const lastCsv = await one(pages - 1, 'text/csv');
    const firstPageJson = await measure(() => call('GET', reportPath(0)), 5, 1);
    const walk = async (accept: string) => {
      const start = performance.now();
      let rows = 0;
      for (let page = 0; page < pages; page++) {
        const out = await call('GET', reportPath(page), undefined, accept);
        rows += accept === 'text/csv' ? out.text.split('\r\n').length - 2 : out.json().findings.length;
        if (page % 20 === 19) ctx.progress(`walking ${accept}: page ${page + 1}/${pages}`);
      }
      return { pages, rows, seconds: Math.round((performance.now() - start) / 100) / 10 };
    };
    const walkJson = await walk('application/json');
    const walkCsv = await walk('text/csv');
    clearInterval(sampler);
    return {
      note: 'one run on a shared, busy 2-core machine: rough figures. The local server buffers responses, so time to the headers is close to the total.',
      triage: { actions: 100, request: triage100 },
      report: {
        findings: FINDINGS,
        environments: ENVIRONMENTS,
        pageSize: PAGE_SIZE,
        seedSeconds,
        firstPageJson: firstJson,
        lastPageJson: lastJson,
        firstPageCsv: firstCsv,
        lastPageCsv: lastCsv,
        firstPageJsonLatency: firstPageJson,
        walkAllPagesJson: walkJson,
        walkAllPagesCsv: walkCsv,
        memoryMb: {
          rssBefore: mb(before.rss),
          rssPeak: mb(peak.rss),
          heapBefore: mb(before.heapUsed),
          heapPeak: mb(peak.heap),
        },
      },
    };
  },
};

export default section;
