import { performance } from 'node:perf_hooks';
import { benchTenant, type BenchSection, benchCaller } from './harness.ts';
import { interleaved } from './outside.ts';
import { formatsFixture } from '../../scanner/test/formats-expected.ts';
import { wapitiFixture } from '../../scanner/test/wapiti-expected.ts';

// Issues and what changed (docs/ISSUES.md, docs/DATA-MODEL.md, Scan diffs), its two figures:
// - diff: GET /api/v1/scan/{scanId}/diff?against= of two scans of FINDINGS findings each (BENCH_ISSUES_FINDINGS to
//   change it): the later one drops a tenth of the earlier one's findings and reports as many others, half of them
//   never seen (new) and half reported by a scan before the earlier one and fixed by it (regressed). The answer's
//   sets are checked before anything is timed. Goal: under 1 s. Measured in interleaved rounds with the domain call
//   alone (diffOfScans in process) and its floor: the two scans' digests read from DynamoDB Local as the diff reads
//   them, nothing done with them (what the engine alone charges); and the two scans' URI ranges, which a diff of scans
//   published before digests reads instead (urisFloor).
// - import: the operation's import of a ZAP report of FINDINGS findings into an environment with one tool stream
//   (a ZAP scan of as many findings before it), and into one with five (the same ZAP scan, then Wapiti, Nuclei,
//   Burp Suite and SARIF samples). Both environments take the same reports in the same order, alternating which goes
//   first each round; each report re-scans the previous one with a few paths moved, as a scan of an unchanged
//   target does. Called in process without the operation's 20 s deadline (as the imports section does): on a busy
//   shared machine the budget, not the work, would decide. Goal: five streams no slower than one (median of ROUNDS).
const FINDINGS = Number(process.env.BENCH_ISSUES_FINDINGS ?? 10_000);
/** Pages reported by one plugin; a request reports at most URIS_PER_REQUEST of them (a busy machine stores 1,000
 * URIs in one request past the operation's 20 s). */
const PAGES_PER_PLUGIN = 1_000;
const URIS_PER_REQUEST = 500;
const ROUNDS = 3;
const DIFF_ROUNDS = 5;

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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

type Call = ReturnType<typeof benchCaller>;
/** reportScanCompleted in process: on a busy machine a 10,000-finding completion can pass the local API's timeout. */
type Complete = (scanId: string, urlCount: number) => Promise<unknown>;

/**
 * A completed scan of environment `env` reporting pages `from` to `to - 1`, as HawkScan reports them: requests of up
 * to URIS_PER_REQUEST URIs, then its completion (`complete`). A page's plugin (and so its finding) depends on the page
 * alone, so two scans that report the same page report the same finding.
 */
export async function scanOfPages(
  call: Call,
  complete: Complete,
  appId: string,
  env: string,
  from: number,
  to: number,
): Promise<string> {
  const { scanId } = await call('POST', `/api/v1/app/${appId}/scan`, {
    env,
    config: `app:\n  env: ${env}\n  host: https://target.test\n`,
    hawkscanVersion: '4.0.0',
    host: 'https://target.test',
    tags: [],
  });
  const pluginOf = (page: number) => 10_000 + Math.floor(page / PAGES_PER_PLUGIN);
  for (let start = from; start < to; start += URIS_PER_REQUEST) {
    const byPlugin = new Map<number, number[]>();
    for (let page = start; page < Math.min(to, start + URIS_PER_REQUEST); page++)
      byPlugin.set(pluginOf(page), [...(byPlugin.get(pluginOf(page)) ?? []), page]);
    const alerts = [...byPlugin].map(([plugin, pages]) => ({
      pluginId: String(plugin),
      name: `Plugin ${plugin}`,
      severity: 'Medium',
      description: 'generated',
      cweId: String(79 + (plugin % 100)),
      references: [],
      uris: pages.map((page) => ({
        uri: `/pages/page-${page}/view`,
        requestMethod: 'GET',
        param: 'q',
        evidence: '<script>',
        requestHeader: 'GET / HTTP/1.1\r\nHost: target.test\r\n',
        responseHeader: 'HTTP/1.1 200 OK\r\n',
      })),
    }));
    await call('POST', `/api/v1/scan/${scanId}/alerts`, { alerts });
  }
  await complete(scanId, to - from);
  return scanId as string;
}

/** The diff of two scans of FINDINGS findings, its sets checked, then timed. */
async function diffFigures(ctx: Parameters<BenchSection['run']>[0], call: Call, complete: Complete, appId: string) {
  const tenth = FINDINGS / 10;
  ctx.progress(`issues: two scans of ${FINDINGS} findings (and one of ${tenth / 2} before them) ...`);
  // Pages FINDINGS .. +tenth/2 are reported, fixed by `base`, and back in `scan`: regressed.
  await scanOfPages(call, complete, appId, 'diff', FINDINGS, FINDINGS + tenth / 2);
  const base = await scanOfPages(call, complete, appId, 'diff', 0, FINDINGS);
  const scan = await scanOfPages(call, complete, appId, 'diff', tenth, FINDINGS + tenth);
  const sample = await call('GET', `/api/v1/scan/${scan}/diff?against=${base}`);
  const sets = {
    new: sample.new.length,
    regressed: sample.regressed.length,
    fixed: sample.fixed.length,
    unchanged: sample.unchanged.length,
  };
  const expected = { new: tenth / 2, regressed: tenth / 2, fixed: tenth, unchanged: FINDINGS - tenth };
  if (JSON.stringify(sets) !== JSON.stringify(expected))
    throw new Error(`issues: the diff's sets are ${JSON.stringify(sets)}, not ${JSON.stringify(expected)}`);
  ctx.progress(`issues: the diff, its domain call and its floor, ${DIFF_ROUNDS} interleaved rounds ...`);
  const { diff: timings } = await interleaved(
    {
      diff: {
        // The operation over HTTP: authentication, the domain call, JSON encoding.
        operation: () => call('GET', `/api/v1/scan/${scan}/diff?against=${base}`),
        // The domain call alone (shared/scans/diff.ts), in process.
        inProcess: async () => {
          const { diffOfScans } = await import('../../shared/scans/diff.ts');
          const [s, b] = await Promise.all([scanRecord(appId, scan), scanRecord(appId, base)]);
          return diffOfScans(s, b);
        },
        // What DynamoDB Local alone charges: the two scans' digests read as the diff reads them (scans/scan-digest.ts),
        // nothing done with them.
        floor: async () => {
          const { scanDigestOf } = await import('../../shared/scans/scan-digest.ts');
          const [s, b] = await Promise.all([scanRecord(appId, scan), scanRecord(appId, base)]);
          const digests = await Promise.all([s, b].map(scanDigestOf));
          if (!digests.every(Boolean)) throw new Error('issues: a scan of the diff has no digest');
        },
        // The same scans' URI ranges, read as a diff of scans without digests reads them (published before digests).
        urisFloor: () => Promise.all([scan, base].map((id) => urisRead(appId, id))),
      },
    },
    DIFF_ROUNDS,
    1,
  );
  const bytes = Buffer.byteLength(JSON.stringify(sample));
  return {
    findingsPerScan: FINDINGS,
    ...sets,
    answerKb: Math.round(bytes / 1024),
    ...timings,
    goalMet: timings.operation.p50Ms < 1000,
  };
}

/** The scan's record (the diff's input). */
async function scanRecord(appId: string, scanId: string) {
  const { getScanLocation, getScan } = await import('../../shared/results/scan-repository.ts');
  const location = await getScanLocation(scanId);
  if (location?.applicationId !== appId) throw new Error(`issues: scan ${scanId} is not of application ${appId}`);
  return (await getScan(location))!;
}

/** The scan's URI range, projected as countedUrisOfScan reads it. */
async function urisRead(appId: string, scanId: string) {
  const { queryAll } = await import('../../shared/db/query.ts');
  const { keys } = await import('../../shared/db/keys.ts');
  const { environmentId } = await scanRecord(appId, scanId);
  const range = keys.urisOfScan(appId, environmentId, scanId);
  const items = await queryAll({
    partition: range.pk,
    skFrom: range.skFrom,
    skTo: range.skTo,
    attributes: ['n', 'pluginId', 'findingHash', 'uri', 'requestMethod', 'param'],
  });
  return items.length;
}

const section: BenchSection = {
  name: 'issues',
  async run(ctx) {
    const { IMPORT_LIMITS } = await import('../../shared/limits.ts');
    const { importScanReport } = await import('../../shared/scans/import.ts');
    const { createCaller } = await import('../../shared/identity/caller.ts');
    const { actorNames } = await import('../../shared/identity/user-repository.ts');
    const { orgId, userId, token } = await benchTenant(ctx, 'issues');
    const call = benchCaller(ctx.baseUrl, token);
    const app = await call('POST', `/api/v1/org/${orgId}/app`, { name: 'bench-issues', env: 'diff' });
    const appId = app.applicationId as string;

    const caller = createCaller({ userId, apiKeyId: 'bench' }, 'write:scan', await actorNames(userId));
    const { reportScanCompleted } = await import('../../shared/scans/reporting.ts');
    const complete: Complete = (scanId, urlCount) =>
      reportScanCompleted(caller, scanId, { status: 'COMPLETED', urlCount });
    const diff = await diffFigures(ctx, call, complete, appId);

    const importInto = async (env: string, report: string) => {
      const start = performance.now();
      const done = await importScanReport(
        caller,
        appId,
        env,
        Buffer.from(report),
        Date.now() + 10 * IMPORT_LIMITS.budgetMs,
      );
      if (done.urisImported !== FINDINGS) throw new Error(`issues: ${done.urisImported} findings imported into ${env}`);
      return Math.round(performance.now() - start);
    };
    ctx.progress(`issues: environments of one and five streams, each with a ZAP scan of ${FINDINGS} findings ...`);
    await importInto('one', zapReport(FINDINGS));
    await importInto('five', zapReport(FINDINGS));
    const others = [
      [wapitiFixture('wapiti-xml_3.0.4_local-node-target_GENERATED-here.xml'), 'application/xml'],
      [
        formatsFixture('nuclei', 'nuclei-jsonl_v2-2022_classification_defectdojo-many_findings_new.jsonl'),
        'text/plain',
      ],
      [formatsFixture('burp', 'burp-xml_1.6.05_base64_defectdojo-seven_findings.xml'), 'application/xml'],
      [formatsFixture('sarif', 'sarif_semgrep-oss-1.69.0_defectdojo-issue_10191.sarif.json'), 'application/json'],
    ] as const;
    const otherStreams: Record<string, number> = {};
    for (const [body, type] of others) {
      const done = await call('POST', `/api/v1/app/${appId}/scan/import?env=five`, body, type);
      otherStreams[done.toolName || done.tool] = done.urisImported;
    }
    const { getEnvironmentByName } = await import('../../shared/applications/environment-repository.ts');
    const streamsOf = async (env: string) =>
      Object.keys((await getEnvironmentByName(appId, env))?.streams ?? {}).sort();
    const streams = { one: await streamsOf('one'), five: await streamsOf('five') };
    if (streams.one.length !== 1 || streams.five.length !== 5)
      throw new Error(`issues: the environments' streams are ${JSON.stringify(streams)}`);
    const timings: { one: number[]; five: number[] } = { one: [], five: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      ctx.progress(`issues: import round ${round} of ${ROUNDS} ...`);
      const report = zapReport(FINDINGS, 5 * round);
      const order = round % 2 ? (['one', 'five'] as const) : (['five', 'one'] as const);
      for (const env of order) timings[env].push(await importInto(env, report));
    }
    const one = median(timings.one);
    const five = median(timings.five);
    return {
      note:
        `diff: GET .../diff?against= over HTTP (operation), diffOfScans in process (inProcess), the two scans' digests ` +
        `read alone (floor) and their URI ranges' Queries alone (urisFloor), ${DIFF_ROUNDS} interleaved rounds after one unmeasured; its sets checked first. import: the ` +
        `operation's import of a ${FINDINGS}-finding ZAP report called in process without its 20 s deadline, into ` +
        `each environment in turn, ${ROUNDS} rounds alternating which goes first; median ms.`,
      diff,
      import: {
        findings: FINDINGS,
        otherStreamsFindings: otherStreams,
        streams,
        oneStreamMs: timings.one,
        fiveStreamsMs: timings.five,
        oneStreamMedianMs: one,
        fiveStreamsMedianMs: five,
        fiveToOne: Math.round((five / one) * 100) / 100,
      },
    };
  },
};

export default section;
