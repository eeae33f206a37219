import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { benchTenant, measure, type BenchSection, benchCaller } from './harness.ts';

// SARIF export figures (docs/SARIF-EXPORT.md): time and size of the log of a scan of 10,000 findings
// (BENCH_SARIF_FINDINGS to change it), 10% of them triaged (suppressions) and half placed in the hosted OpenAPI
// description: through the operation (gzip accepted, as clients send it, and not), through the CLI
// (`hawk-scanner sarif`, a child process, wall time with its start), and the exporter alone in this process.
const FINDINGS = Number(process.env.BENCH_SARIF_FINDINGS ?? 10_000);
const URIS_PER_BATCH = 1_000;
const PLUGINS = 20;
const ROOT = new URL('../../', import.meta.url).pathname;

// One operation that every even finding's request matches (the exporter's cost is per finding, not per operation).
const DESCRIPTION = `openapi: 3.0.3
info:
  title: Bench
  version: 1.0.0
paths:
  /api/{group}/{name}:
    get:
      operationId: getItem
      parameters:
        - name: group
          in: path
          required: true
          schema:
            type: string
        - name: name
          in: path
          required: true
          schema:
            type: string
      responses:
        '200':
          description: Success
`;

const kb = (bytes: number) => Math.round(bytes / 1024);

const section: BenchSection = {
  name: 'sarif',
  async run(ctx) {
    const { orgId, token, apiKey } = await benchTenant(ctx, 'sarif');
    const call = benchCaller(ctx.baseUrl, token);
    const app = await call('POST', `/api/v1/org/${orgId}/app`, { name: 'bench-sarif', env: 'dev' });
    const appId = app.applicationId as string;
    // The upload's validation has a time limit that a loaded machine can miss: tried three times, then left out.
    let described = false;
    for (let attempt = 1; attempt <= 3 && !described; attempt++) {
      described = await call('POST', `/api/v1/oas/${appId}/upload`, DESCRIPTION, 'text/plain').then(
        () => true,
        (error: Error) => (ctx.progress(`description upload ${attempt}: ${error.message.slice(0, 120)}`), false),
      );
    }
    const { scanId, envId } = await call('POST', `/api/v1/app/${appId}/scan`, {
      env: 'dev',
      config: 'app:\n  env: dev\n  host: https://target.test\n',
      hawkscanVersion: '4.0.0',
      host: 'https://target.test',
      tags: [],
    });
    ctx.progress(`reporting ${FINDINGS} findings ...`);
    for (let from = 0; from < FINDINGS; from += URIS_PER_BATCH) {
      const b = from / URIS_PER_BATCH;
      const pluginId = String(10_000 + (b % PLUGINS));
      // Even findings on a described operation, odd ones elsewhere; names, not ids, so each is its own finding.
      const uris = Array.from({ length: Math.min(URIS_PER_BATCH, FINDINGS - from) }, (_, i) => ({
        uri: (from + i) % 2 === 0 ? `/api/p${b % PLUGINS}/item-${from + i}` : `/pages/page-${from + i}`,
        requestMethod: 'GET',
        param: 'q',
        evidence: '<script>',
        requestHeader: 'GET / HTTP/1.1\r\nHost: target.test\r\n',
        responseHeader: 'HTTP/1.1 200 OK\r\n',
      }));
      await call('POST', `/api/v1/scan/${scanId}/alerts`, {
        alerts: [
          {
            pluginId,
            name: `Plugin ${pluginId}`,
            severity: (['High', 'Medium', 'Low'] as const)[b % 3],
            description: 'A generated alert. '.repeat(20),
            cweId: String(79 + (b % 5)),
            references: ['https://owasp.org/www-project-top-ten/', 'https://cwe.mitre.org/'],
            uris,
          },
        ],
      });
    }
    await call('POST', `/api/v1/scan/${scanId}/complete`, { status: 'COMPLETED', urlCount: FINDINGS });

    // Triage 10% of the findings (100 per request, the operation's limit).
    const hashes: string[] = [];
    const plugins = Math.min(PLUGINS, Math.ceil(FINDINGS / URIS_PER_BATCH));
    for (let p = 0; p < plugins && hashes.length < FINDINGS / 10; p++) {
      const alert = await call('GET', `/api/v1/scan/${scanId}/alert/${10_000 + p}?pageSize=100`);
      for (const u of alert.applicationScanAlertUris ?? []) hashes.push(u.findingHash);
    }
    const triaged = hashes.slice(0, FINDINGS / 10);
    for (let i = 0; i < triaged.length; i += 100) {
      await call('POST', `/api/v1/org/${orgId}/app/${appId}/env/${envId}/findings/triage`, {
        actions: triaged.slice(i, i + 100).map((findingHash, j) => ({
          findingHash,
          status: j % 2 ? 'RISK_ACCEPTED' : 'FALSE_POSITIVE',
          note: 'bench',
        })),
      });
    }

    const fetchSarif = async (encoding: string) => {
      const response = await fetch(`${ctx.baseUrl}/api/v1/scan/${scanId}/sarif`, {
        headers: { authorization: `Bearer ${token}`, 'accept-encoding': encoding },
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`sarif: ${response.status} ${text.slice(0, 200)}`);
      return {
        text,
        parts: Number(response.headers.get('x-sarif-parts')),
        total: response.headers.get('x-total-count'),
      };
    };
    ctx.progress('exporting ...');
    const first = await fetchSarif('gzip');
    const log = JSON.parse(first.text);
    const results = log.runs[0].results.length as number;
    const suppressed = log.runs[0].results.filter((r: { suppressions?: unknown[] }) => r.suppressions).length;
    const inDescription = log.runs[0].results.filter(
      (r: { locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }) =>
        r.locations[0].physicalLocation.artifactLocation.uri === 'openapi.yaml',
    ).length;
    const operationGzip = await measure(() => fetchSarif('gzip'), 10, 2);
    const plain = await fetchSarif('identity');
    const operationPlain = await measure(() => fetchSarif('identity'), 5, 1);

    // The CLI: login, the environment's last scan, the log, written to stdout.
    const cliStart = performance.now();
    const cli = await new Promise<{ code: number | null; bytes: number }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [`${ROOT}scanner/bin/hawk-scanner.mjs`, 'sarif', '--app', appId, '--env', 'dev'],
        { env: { PATH: process.env.PATH!, HAWK_API_KEY: apiKey, HAWK_API_URL: ctx.baseUrl } },
      );
      let bytes = 0;
      child.stdout.on('data', (d: Buffer) => (bytes += d.length));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, bytes }));
    });
    const cliMs = Math.round(performance.now() - cliStart);
    if (cli.code !== 0) throw new Error(`hawk-scanner sarif exited ${cli.code}`);

    // The exporter alone, on the same findings (no storage): what building and the size checks cost.
    const { sarifLogs, describedOperations } = await import('@hawk-api/scanner/sarif-export');
    const input = {
      applicationId: appId,
      applicationName: 'bench-sarif',
      environmentName: 'dev',
      scanId,
      scanStatus: 'COMPLETED',
      startedAt: Date.now(),
      host: 'https://target.test',
      toolName: 'HawkScan',
      toolVersion: '4.0.0',
      alerts: log.runs[0].tool.driver.rules.map((r: { id: string; name: string }, i: number) => ({
        pluginId: r.id,
        name: r.name,
        severity: (['High', 'Medium', 'Low'] as const)[i % 3],
        description: 'A generated alert. '.repeat(20),
        cweId: '79',
        references: ['https://owasp.org/www-project-top-ten/'],
      })),
      findings: log.runs[0].results.map(
        (r: { ruleId: string; properties: { findingHash: string; url: string; triageStatus: string } }) => ({
          findingHash: r.properties.findingHash,
          pluginId: r.ruleId,
          requestMethod: 'GET',
          url: r.properties.url,
          param: 'q',
          status: r.properties.triageStatus,
          note: '',
          triagedBy: '',
          triagedAt: 0,
        }),
      ),
      description: { uri: 'openapi.yaml', operations: describedOperations(DESCRIPTION) },
      configurationUri: 'stackhawk.yml',
    };
    const builder = await measure(async () => sarifLogs(input), 10, 2);

    return {
      findings: FINDINGS,
      descriptionUploaded: described,
      results,
      suppressed,
      inDescription,
      parts: first.parts,
      jsonKb: kb(Buffer.byteLength(plain.text)),
      gzipKb: kb(gzipSync(plain.text).length),
      resultsPerSecondThroughOperation: Math.round((results / operationGzip.p50Ms) * 1000),
      operationGzip,
      operationPlain,
      cliMs,
      cliBytes: cli.bytes,
      builderInProcess: builder,
    };
  },
};

export default section;
