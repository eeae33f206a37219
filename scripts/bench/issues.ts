import { performance } from 'node:perf_hooks';
import { benchTenant, measure, type BenchSection, benchCaller } from './harness.ts';
import { formatsFixture } from '../../scanner/test/formats-expected.ts';
import { wapitiFixture } from '../../scanner/test/wapiti-expected.ts';

// Issues and what changed (docs/ISSUES.md, docs/DATA-MODEL.md, Scan diffs): the diff of two scans of 10,000 findings
// each (BENCH_ISSUES_FINDINGS to change it; 10% differ: goal under 1 s), and the import of a report of as many
// findings into an environment with one tool stream, then into one with five (the four other tools' samples
// imported first): goal no slower.
const FINDINGS = Number(process.env.BENCH_ISSUES_FINDINGS ?? 10_000);
const URIS_PER_BATCH = 1_000;

/** A ZAP report (traditional JSON) of `n` findings over 10 plugins, `offset` shifting which paths it reports. */
function zapReport(n: number, offset = 0): string {
  const alerts = Array.from({ length: 10 }, (_, p) => ({
    pluginid: String(10_100 + p),
    alert: `Plugin ${p}`,
    name: `Plugin ${p}`,
    riskcode: String(1 + (p % 3)),
    confidence: '2',
    desc: '<p>generated</p>',
    cweid: String(79 + p),
    wascid: '0',
    solution: '',
    otherinfo: '',
    reference: '',
    instances: Array.from({ length: n / 10 }, (_, i) => ({
      uri: `https://target.test/page-${offset + i}/item`,
      method: 'GET',
      param: 'q',
      attack: '',
      evidence: '<script>',
    })),
  }));
  return JSON.stringify({
    '@version': '2.14.0',
    site: [{ '@name': 'https://target.test', '@host': 'target.test', '@port': '443', '@ssl': 'true', alerts }],
  });
}

const section: BenchSection = {
  name: 'issues',
  async run(ctx) {
    const { orgId, token } = await benchTenant(ctx, 'issues');
    const call = benchCaller(ctx.baseUrl, token);
    const app = await call('POST', `/api/v1/org/${orgId}/app`, { name: 'bench-issues', env: 'diff' });
    const appId = app.applicationId as string;

    // Two scans of FINDINGS findings; the second drops a tenth of the first's and reports as many new ones.
    const scanOf = async (offset: number) => {
      const { scanId } = await call('POST', `/api/v1/app/${appId}/scan`, {
        env: 'diff',
        config: 'app:\n  env: diff\n  host: https://target.test\n',
        hawkscanVersion: '4.0.0',
        host: 'https://target.test',
        tags: [],
      });
      for (let from = 0; from < FINDINGS; from += URIS_PER_BATCH) {
        const b = from / URIS_PER_BATCH;
        const uris = Array.from({ length: Math.min(URIS_PER_BATCH, FINDINGS - from) }, (_, i) => ({
          uri: `/pages/page-${offset + from + i}/view`,
          requestMethod: 'GET',
          param: 'q',
          evidence: '<script>',
          requestHeader: 'GET / HTTP/1.1\r\nHost: target.test\r\n',
          responseHeader: 'HTTP/1.1 200 OK\r\n',
        }));
        const pluginId = String(10_000 + b);
        const alert = { pluginId, name: `Plugin ${pluginId}`, severity: 'Medium', description: 'generated' };
        await call('POST', `/api/v1/scan/${scanId}/alerts`, {
          alerts: [{ ...alert, cweId: String(79 + b), references: [], uris }],
        });
      }
      await call('POST', `/api/v1/scan/${scanId}/complete`, { status: 'COMPLETED', urlCount: FINDINGS });
      return scanId as string;
    };
    ctx.progress(`two scans of ${FINDINGS} findings ...`);
    const first = await scanOf(0);
    const second = await scanOf(FINDINGS / 10);
    const sample = await call('GET', `/api/v1/scan/${second}/diff?against=${first}`);
    const diff = await measure(() => call('GET', `/api/v1/scan/${second}/diff?against=${first}`), 5, 1);

    // The import of FINDINGS findings into an environment with one stream, then into one with five.
    const report = zapReport(FINDINGS);
    const timed = async (env: string) => {
      const start = performance.now();
      await call('POST', `/api/v1/app/${appId}/scan/import?env=${env}`, report, 'application/json');
      return Math.round(performance.now() - start);
    };
    ctx.progress('imports ...');
    await call('POST', `/api/v1/app/${appId}/scan/import?env=one`, zapReport(FINDINGS, 5), 'application/json');
    const oneStream = await timed('one');
    const others = [
      [wapitiFixture('wapiti-xml_3.0.4_local-node-target_GENERATED-here.xml'), 'application/xml'],
      [
        formatsFixture('nuclei', 'nuclei-jsonl_v2-2022_classification_defectdojo-many_findings_new.jsonl'),
        'text/plain',
      ],
      [formatsFixture('burp', 'burp-xml_1.6.05_base64_defectdojo-seven_findings.xml'), 'application/xml'],
      [formatsFixture('sarif', 'sarif_semgrep-oss-1.69.0_defectdojo-issue_10191.sarif.json'), 'application/json'],
    ] as const;
    await call('POST', `/api/v1/app/${appId}/scan/import?env=five`, zapReport(FINDINGS, 5), 'application/json');
    for (const [body, type] of others) await call('POST', `/api/v1/app/${appId}/scan/import?env=five`, body, type);
    const fiveStreams = await timed('five');

    return {
      findings: FINDINGS,
      diff: { new: sample.new.length, fixed: sample.fixed.length, unchanged: sample.unchanged.length, ...diff },
      importOneStreamMs: oneStream,
      importFiveStreamsMs: fiveStreams,
    };
  },
};

export default section;
