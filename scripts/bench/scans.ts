import { performance } from 'node:perf_hooks';
import { benchTenant, measure, type BenchSection } from './harness.ts';

// Scan figures (docs/DATA-MODEL.md, Scans): the scanner's reporting throughput (alert URIs stored per second, through
// the HTTP API, batches of 1,000 URIs with about 1 KB of request/response each, sent by one scanner and by four at
// once), and the read latency of the large scan's alerts, of an alert's first and last page of URIs, and of one
// finding's message.
const TOTAL_URIS = 20_000;
const URIS_PER_BATCH = 1_000;
const PLUGINS = 20;

const section: BenchSection = {
  name: 'scans',
  async run(ctx) {
    const { scopeObservers } = await import('../../shared/context/request-scope.ts');
    const { orgId, token } = await benchTenant(ctx, 'scans');

    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${ctx.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
      return JSON.parse(text);
    };
    const app = await call('POST', `/api/v1/org/${orgId}/app`, { name: 'bench', env: 'dev' });
    const config = 'app:\n  env: dev\n  host: https://target.test\n';

    const batch = (b: number) => {
      const pluginId = String(10_000 + (b % PLUGINS));
      return {
        alerts: [
          {
            pluginId,
            name: `Plugin ${pluginId}`,
            severity: (['High', 'Medium', 'Low'] as const)[b % 3],
            description: 'x'.repeat(500),
            cweId: '79',
            references: ['https://owasp.org/'],
            uris: Array.from({ length: URIS_PER_BATCH }, (_, i) => ({
              uri: `/api/items/${b}/${i}?q=1`,
              requestMethod: 'GET',
              param: 'q',
              evidence: '<script>',
              requestHeader: `GET https://target.test/api/items/${b}/${i}?q=1 HTTP/1.1\r\nHost: target.test\r\nAccept: */*\r\n`,
              responseHeader: 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n',
              responseBody: 'r'.repeat(800),
            })),
          },
        ],
      };
    };

    /** Reports the scan with `scanners` requests in flight; returns URIs per second and the scan id. */
    const report = async (scanners: number) => {
      const { scanId } = await call('POST', `/api/v1/app/${app.applicationId}/scan`, {
        env: `dev-${scanners}`,
        config,
        hawkscanVersion: '4.0.0',
        host: 'https://target.test',
      });
      const batches = TOTAL_URIS / URIS_PER_BATCH;
      let next = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: scanners }, async () => {
          for (let b = next++; b < batches; b = next++) {
            await call('POST', `/api/v1/scan/${scanId}/alerts`, batch(b));
            if ((b + 1) % 5 === 0)
              ctx.progress(`reporting (${scanners} in flight): ${(b + 1) * URIS_PER_BATCH}/${TOTAL_URIS} URIs`);
          }
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      await call('POST', `/api/v1/scan/${scanId}/complete`, { status: 'COMPLETED', urlCount: TOTAL_URIS });
      return { scanId, urisPerSecond: Math.round(TOTAL_URIS / seconds), seconds: Math.round(seconds * 100) / 100 };
    };

    const sequential = await report(1);
    const parallel = await report(4);
    const { scanId } = parallel;

    ctx.progress('read latency of the large scan');
    const lastPage = TOTAL_URIS / PLUGINS / 100 - 1;
    const findings = await call('GET', `/api/v1/scan/${scanId}/alert/10000?pageSize=100`);
    const finding = findings.applicationScanAlertUris[0];
    const get = (path: string) => () => call('GET', path);
    const paths = {
      listScanAlerts: `/api/v1/scan/${scanId}/alerts?pageSize=100`,
      listScanAlertFindingsFirstPage: `/api/v1/scan/${scanId}/alert/10000?pageSize=100`,
      listScanAlertFindingsLastPage: `/api/v1/scan/${scanId}/alert/10000?pageSize=100&pageToken=${lastPage}`,
      getAlertMessages: `/api/v1/scan/${scanId}/uri/${finding.alertUriId}/messages/${finding.msgId}`,
      listScans: `/api/v1/scan/${orgId}`,
    };
    const latency: Record<string, unknown> = {};
    const dynamodbCalls: Record<string, number> = {};
    const calls: number[] = [];
    scopeObservers.push((scope) => calls.push(scope.dynamodbCalls));
    for (const [name, path] of Object.entries(paths)) {
      calls.length = 0;
      await get(path)();
      dynamodbCalls[name] = calls[0];
      latency[name] = await measure(get(path), 100, 10);
    }
    scopeObservers.length = 0;
    return {
      reporting: {
        scanUris: TOTAL_URIS,
        urisPerRequest: URIS_PER_BATCH,
        oneScannerUrisPerSecond: sequential.urisPerSecond,
        oneScannerSeconds: sequential.seconds,
        fourInFlightUrisPerSecond: parallel.urisPerSecond,
        fourInFlightSeconds: parallel.seconds,
      },
      readLatency: latency,
      dynamodbCalls,
    };
  },
};

export default section;
