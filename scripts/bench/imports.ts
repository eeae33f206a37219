import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchTenant, type BenchSection } from './harness.ts';
import { generatedReport, importThroughOperation, withRss } from './import.ts';

// Report import throughput per tool (docs/IMPORTS.md): ZAP, Wapiti, Nuclei, Burp Suite and SARIF, each for its
// largest real sample (scanner/test/fixtures/<tool>/, see SOURCES.md there) and for a generated report of 10,000
// findings (BENCH_IMPORTS_FINDINGS to change it) in each of the tool's forms. Two measures:
// - read: recognition, parse and mapping (parseReports, then toReportedAlerts, as the CLI and the operation read a
//   report) in a child process of its own (scripts/bench/parse-report.ts), so that its peak RSS is this report's:
//   the first read (a cold process, as a CLI run or a fresh Lambda) and the median of the next ones (warm);
// - operation: the whole import (read, store, publish) on the local stack: a sample as one request
//   (POST /api/v1/app/{appId}/scan/import), a generated report through the operation's import function without
//   its 20 s deadline (a shared machine's load would decide, not the work), saying whether it fit in the budget.
// The generated reports carry no HTTP messages (the real samples carry the tools' own), so each fits the operation's
// 4 MiB; their findings are spread over 50 rules with distinct URLs. The `import` section has ZAP through the CLI.
const FINDINGS = Number(process.env.BENCH_IMPORTS_FINDINGS ?? 10_000);
const RULES = 50;
const WARM_RUNS = { sample: 9, generated: 4 };
const ROOT = new URL('../../', import.meta.url).pathname;
const FIXTURES = join(ROOT, 'scanner/test/fixtures');
const ALL_TOOLS = ['zap', 'wapiti', 'nuclei', 'burp', 'sarif'] as const;
type Tool = (typeof ALL_TOOLS)[number];
/** BENCH_IMPORTS_TOOLS=zap,sarif to measure only those tools (all by default). */
const TOOLS = ALL_TOOLS.filter((t) => (process.env.BENCH_IMPORTS_TOOLS ?? ALL_TOOLS.join(',')).split(',').includes(t));
/** Fixtures that are not a tool's own untouched output (SOURCES.md says which): edited, synthetic, wrong or empty. */
const NOT_REAL = /EDITED|SYNTHETIC|WRONG-FORMAT|malformed|empty/i;

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const perSecond = (n: number, ms: number) => Math.round((n / ms) * 1000);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The tool's real samples, largest first. */
const samplesOf = (tool: Tool) =>
  readdirSync(join(FIXTURES, tool))
    .filter((name) => /\.(xml|json|jsonl)$/.test(name) && !NOT_REAL.test(name))
    .map((name) => ({ name, path: join(FIXTURES, tool, name), bytes: statSync(join(FIXTURES, tool, name)).size }))
    .sort((a, b) => b.bytes - a.bytes);

const contentTypeOf = (file: string) =>
  file.endsWith('.xml')
    ? 'application/xml'
    : file.endsWith('.jsonl')
      ? 'application/x-ndjson'
      : file.endsWith('.sarif.json')
        ? 'application/sarif+json'
        : 'application/json';

const rule = (i: number) => i % RULES;
const pathOf = (i: number) => `/items/${rule(i)}/${i}?q=${i}`;

function wapitiReport(n: number, form: 'json' | 'xml'): string {
  const levels = (r: number) => r % 5; // 0 to 4
  const name = (r: number) => `Bench category ${r}`;
  if (form === 'json') {
    const classifications: Record<string, unknown> = {};
    const vulnerabilities: Record<string, unknown[]> = {};
    for (let r = 0; r < RULES; r++) {
      classifications[name(r)] = {
        desc: `Generated category ${r}.`,
        sol: 'Fix it.',
        ref: { [`CWE-${16 + r}: Bench`]: `https://cwe.mitre.org/data/definitions/${16 + r}.html` },
      };
      vulnerabilities[name(r)] = [];
    }
    for (let i = 0; i < n; i++)
      vulnerabilities[name(rule(i))].push({
        method: 'GET',
        path: pathOf(i),
        info: `Bench finding ${i}`,
        level: levels(rule(i)),
        parameter: 'q',
        http_request: `GET ${pathOf(i)} HTTP/1.1\nHost: bench.test`,
        curl_command: `curl "https://bench.test${pathOf(i)}"`,
      });
    const infos = { target: 'https://bench.test/', date: 'Thu, 01 Jan 2026 00:00:00 +0000', version: 'Wapiti 3.0.4' };
    return JSON.stringify({ classifications, vulnerabilities, anomalies: {}, additionals: {}, infos });
  }
  const parts = [
    '<?xml version="1.0" ?>\n<report type="security"><report_infos><info name="generatorName">wapiti</info>' +
      '<info name="generatorVersion">Wapiti 3.0.4</info><info name="target">https://bench.test/</info></report_infos><vulnerabilities>',
  ];
  for (let r = 0; r < RULES; r++) {
    parts.push(
      `<vulnerability name="${name(r)}"><description><![CDATA[Generated category ${r}.]]></description><solution><![CDATA[Fix it.]]></solution>` +
        `<references><reference><title>CWE-${16 + r}: Bench</title><url>https://cwe.mitre.org/data/definitions/${16 + r}.html</url></reference></references><entries>`,
    );
    for (let i = r; i < n; i += RULES)
      parts.push(
        `<entry><method>GET</method><path>${pathOf(i)}</path><level>${levels(r)}</level><parameter>q</parameter><info>Bench finding ${i}</info>` +
          `<http_request><![CDATA[GET ${pathOf(i)} HTTP/1.1\nHost: bench.test]]></http_request><curl_command><![CDATA[curl "https://bench.test${pathOf(i)}"]]></curl_command></entry>`,
      );
    parts.push('</entries></vulnerability>');
  }
  parts.push('</vulnerabilities><anomalies/><additionals/></report>\n');
  return parts.join('');
}

function nucleiReport(n: number, form: 'jsonl' | 'json-array'): string {
  const severities = ['critical', 'high', 'medium', 'low', 'info'];
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      'template-id': `bench-template-${rule(i)}`,
      info: {
        name: `Bench template ${rule(i)}`,
        severity: severities[rule(i) % 5],
        classification: { 'cwe-id': [`cwe-${16 + rule(i)}`] },
      },
      type: 'http',
      host: 'https://bench.test',
      'matched-at': `https://bench.test${pathOf(i)}`,
      timestamp: '2026-01-01T00:00:00Z',
    }),
  );
  return form === 'jsonl' ? lines.join('\n') + '\n' : `[${lines.join(',\n')}]\n`;
}

function burpReport(n: number): string {
  const severities = ['High', 'Medium', 'Low', 'Information'];
  const parts = ['<?xml version="1.1"?>\n<issues burpVersion="2023.1" exportTime="Thu Jan 01 00:00:00 UTC 2026">\n'];
  for (let i = 0; i < n; i++)
    parts.push(
      `<issue><serialNumber>${1_000_000 + i}</serialNumber><type>${5_244_416 + rule(i)}</type><name><![CDATA[Bench issue ${rule(i)}]]></name>` +
        `<host ip="127.0.0.1">https://bench.test</host><path><![CDATA[/items/${rule(i)}/${i}]]></path><location><![CDATA[/items/${rule(i)}/${i} [q parameter]]]></location>` +
        `<severity>${severities[rule(i) % 4]}</severity><confidence>Firm</confidence></issue>\n`,
    );
  parts.push('</issues>\n');
  return parts.join('');
}

function sarifReport(n: number): string {
  const levels = ['error', 'warning', 'note', 'none'];
  const rules = Array.from({ length: RULES }, (_, r) => ({
    id: `bench.rule-${r}`,
    name: `BenchRule${r}`,
    shortDescription: { text: `Bench rule ${r}` },
    defaultConfiguration: { level: levels[r % 4] },
    helpUri: `https://cwe.mitre.org/data/definitions/${16 + r}.html`,
    properties: { tags: ['security', `CWE-${16 + r}`] },
  }));
  // Half the results state their level; the others take their rule's default, as the SARIF specification says.
  const results = Array.from({ length: n }, (_, i) => ({
    ruleId: `bench.rule-${rule(i)}`,
    ruleIndex: rule(i),
    ...(i % 2 ? {} : { level: levels[rule(i) % 4] }),
    message: { text: `Bench finding ${i}` },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: `src/module-${rule(i)}/file-${i}.ts` },
          region: { startLine: 1 + (i % 500) },
        },
      },
    ],
  }));
  return JSON.stringify({
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{ tool: { driver: { name: 'BenchSAST', version: '1.0.0', rules } }, results }],
  });
}

/** The generated reports of `tool`, by form, with their file extension. */
const generatedOf = (tool: Tool, n: number): { form: string; file: string; text: string }[] => {
  switch (tool) {
    case 'zap':
      return [{ form: 'xml', file: 'zap.xml', text: generatedReport(n, false) }];
    case 'wapiti':
      return [
        { form: 'json', file: 'wapiti.json', text: wapitiReport(n, 'json') },
        { form: 'xml', file: 'wapiti.xml', text: wapitiReport(n, 'xml') },
      ];
    case 'nuclei':
      return [
        { form: 'jsonl', file: 'nuclei.jsonl', text: nucleiReport(n, 'jsonl') },
        { form: 'json-array', file: 'nuclei.json', text: nucleiReport(n, 'json-array') },
      ];
    case 'burp':
      return [{ form: 'xml', file: 'burp.xml', text: burpReport(n) }];
    case 'sarif':
      return [{ form: 'sarif', file: 'bench.sarif.json', text: sarifReport(n) }];
  }
};

interface ReadFigures {
  bytes: number;
  runsRead: number;
  tool: string;
  format: string;
  alerts: number;
  findings: number;
  ms: number[];
  rssBefore: number;
  peakRss: number;
}

/** Reads `file` in a child process (scripts/bench/parse-report.ts): one cold read, then `warm` more. */
function readInChild(file: string, warm: number): Promise<ReadFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', join(ROOT, 'scripts/bench/parse-report.ts'), file, String(warm + 1)],
      { cwd: ROOT, env: { PATH: process.env.PATH! } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(stdout) as ReadFigures)
        : reject(new Error(`reading ${file}: ${stderr.slice(-800)}`)),
    );
  });
}

const readFigures = (read: ReadFigures) => {
  const [cold, ...warm] = read.ms;
  return {
    bytes: read.bytes,
    format: read.format,
    ...(read.runsRead > 1 ? { sarifRuns: read.runsRead } : {}),
    alerts: read.alerts,
    findings: read.findings,
    coldMs: Math.round(cold * 10) / 10,
    warmP50Ms: Math.round(median(warm) * 10) / 10,
    findingsPerSecondCold: perSecond(read.findings, cold),
    findingsPerSecondWarm: perSecond(read.findings, median(warm)),
    rssBeforeMb: mb(read.rssBefore),
    peakRssMb: mb(read.peakRss),
    readPeakAboveMb: mb(read.peakRss - read.rssBefore),
  };
};

/**
 * The import's write floor (docs/IMPORTS.md): every item the import of environment `envId` left (its scan's alerts,
 * URIs and messages, the finding records, the scan and environment items: the environment is new) written again
 * with BatchWriteItem alone, as many calls at once as the import writes with (IMPORT_LIMITS.writeConcurrency), under
 * a fresh application id of the same length (so the items are the same size, new keys, not overwrites). Read
 * first, untimed; the writes are timed.
 */
async function writeFloor(
  appId: string,
  envId: string,
): Promise<{ items: number; ms: number; byEntity: Record<string, number> }> {
  const { IMPORT_LIMITS } = await import('../../shared/limits.ts');
  const { batchPut, queryAll } = await import('../../shared/db/query.ts');
  const found = await queryAll({ partition: `APP#${appId}`, skPrefix: `ENVDATA#${envId}#` });
  const other = randomUUID();
  // Every string naming the application renamed, binary attributes (a scan's digest) and sets kept as they are.
  const renamed = (value: unknown): unknown =>
    typeof value === 'string'
      ? value.replaceAll(appId, other)
      : Array.isArray(value)
        ? value.map(renamed)
        : value && typeof value === 'object' && !(value instanceof Uint8Array) && !(value instanceof Set)
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renamed(v)]))
          : value;
  const items = found.map((item) => renamed(item) as typeof item);
  const start = performance.now();
  await batchPut(items, IMPORT_LIMITS.writeConcurrency);
  const ms = Math.round(performance.now() - start);
  const byEntity: Record<string, number> = {};
  for (const item of items) byEntity[String(item.entity)] = (byEntity[String(item.entity)] ?? 0) + 1;
  return { items: items.length, ms, byEntity };
}

const section: BenchSection = {
  name: 'imports',
  async run(ctx) {
    const { IMPORT_LIMITS } = await import('../../shared/limits.ts');
    const { importScanReport } = await import('../../shared/scans/import.ts');
    const { createCaller } = await import('../../shared/identity/caller.ts');
    const { actorNames } = await import('../../shared/identity/user-repository.ts');
    const { orgId, userId, token } = await benchTenant(ctx, 'imports');
    const create = await fetch(`${ctx.baseUrl}/api/v1/org/${orgId}/app`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'imports bench' }),
    });
    const { applicationId: appId } = (await create.json()) as { applicationId: string };
    /**
     * One import through the operation. Its 413 is recorded, not thrown: on a busy machine storing 10,000 findings
     * can pass the operation's 20 s budget, and it then refuses the report whole (the CLI imports it in batches).
     */
    const throughOperation = async (env: string, report: string | Buffer, contentType: string) => {
      const start = performance.now();
      try {
        return await importThroughOperation(ctx, token, appId, env, report, contentType);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!message.startsWith('import: 413 ')) throw error;
        ctx.progress(`imports: ${env}: ${message.slice(0, 160)}`);
        const refused = message.slice('import: '.length, 'import: '.length + 200);
        return { bytes: Buffer.byteLength(report), ms: Math.round(performance.now() - start), refused };
      }
    };
    /**
     * The operation's import of a generated report, called in process with a deadline well past its 20 s budget: on
     * a busy shared machine the budget, not the work, would decide (the operation then answers 413 or, when API
     * Gateway's timeout comes first, fails). What is measured is the work; withinBudget says whether it fit.
     */
    const withoutDeadline = async (env: string, report: string) => {
      const caller = createCaller({ userId, apiKeyId: 'bench' }, 'write:scan', await actorNames(userId));
      const measured = await withRss(() =>
        importScanReport(caller, appId, env, Buffer.from(report), Date.now() + 10 * IMPORT_LIMITS.budgetMs),
      );
      const { urisImported, alertsImported } = measured.result;
      const floor = await writeFloor(appId, measured.result.envId);
      return {
        floorItems: floor.items,
        floorItemsByEntity: Object.entries(floor.byEntity)
          .map(([entity, n]) => `${entity} ${n}`)
          .join(' '),
        floorMs: floor.ms,
        floorItemsPerSecond: perSecond(floor.items, floor.ms),
        ratioToFloor: Math.round((measured.ms / floor.ms) * 100) / 100,
        bytes: Buffer.byteLength(report),
        alerts: alertsImported,
        instances: urisImported,
        ms: Math.round(measured.ms),
        instancesPerSecond: perSecond(urisImported, measured.ms),
        withinBudget: measured.ms <= IMPORT_LIMITS.budgetMs,
        serverRssBeforeMb: measured.rssBeforeMb,
        serverPeakRssMb: measured.peakRssMb,
      };
    };
    const dir = mkdtempSync(join(tmpdir(), 'hawk-bench-imports-'));
    const read: Record<string, unknown> = {};
    const operation: Record<string, unknown> = {};
    try {
      // The first import loads the operation's modules: measured ones then compare readers, not module loading.
      const [warmup] = samplesOf('zap');
      await throughOperation('warmup', readFileSync(warmup.path), 'application/json');

      for (const tool of TOOLS) {
        const samples = samplesOf(tool);
        const largest = samples[0];
        ctx.progress(`imports: ${tool}: ${largest.name} (${Math.round(largest.bytes / 1024)} KiB), read`);
        const sampleRead = await readInChild(largest.path, WARM_RUNS.sample);
        const toolRead: Record<string, unknown> = { largestSample: { file: largest.name, ...readFigures(sampleRead) } };
        // The operation reads one scan per request: a SARIF log of several runs goes to the CLI (docs/IMPORTS.md),
        // so the operation takes the tool's largest sample of one run.
        let opSample = largest;
        if (sampleRead.runsRead > 1) {
          const { parseReports } = await import('@hawk-api/scanner/reports');
          opSample = samples.find((s) => parseReports(readFileSync(s.path)).length === 1) ?? largest;
        }
        ctx.progress(`imports: ${tool}: ${opSample.name} through the operation`);
        const toolOperation: Record<string, unknown> = {
          largestSample: {
            file: opSample.name,
            ...(await throughOperation(`${tool}-sample`, readFileSync(opSample.path), contentTypeOf(opSample.name))),
          },
        };

        for (const generated of generatedOf(tool, FINDINGS)) {
          const path = join(dir, generated.file);
          writeFileSync(path, generated.text);
          const key = `generated${generated.form === tool ? '' : `-${generated.form}`}`;
          ctx.progress(
            `imports: ${tool}: generated ${generated.form} report of ${FINDINGS} findings (${Math.round(generated.text.length / 1024)} KiB), read`,
          );
          const generatedRead = readFigures(await readInChild(path, WARM_RUNS.generated));
          if (generatedRead.findings !== FINDINGS)
            throw new Error(`${generated.file}: read ${generatedRead.findings} findings, generated ${FINDINGS}`);
          toolRead[key] = generatedRead;
          const bytes = Buffer.byteLength(generated.text);
          if (bytes > IMPORT_LIMITS.maxBytes || FINDINGS > IMPORT_LIMITS.maxUris) {
            toolOperation[key] = { bytes, skipped: "past the operation's limits (the CLI imports it)" };
            continue;
          }
          ctx.progress(`imports: ${tool}: generated ${generated.form} report through the operation's import`);
          toolOperation[key] = await withoutDeadline(`${tool}-${generated.form}-generated`, generated.text);
        }
        read[tool] = toolRead;
        operation[tool] = toolOperation;
      }
      return {
        note:
          `read: recognition, parse and mapping (parseReports + toReportedAlerts) in a child process per report; coldMs is its first read, ` +
          `warmP50Ms the median of ${WARM_RUNS.sample} (sample) or ${WARM_RUNS.generated} (generated) more; peakRssMb is the child's peak RSS ` +
          `(getrusage) after the first read, readPeakAboveMb that minus its RSS before it (modules loaded, report in memory). operation: ` +
          `the whole import (read, store, publish) on the local stack: a sample as one POST .../scan/import, a generated report through the ` +
          `operation's import function in process with no deadline (withinBudget: whether it took at most the operation's 20 s); ` +
          `instancesPerSecond = findings stored / wall time, serverPeakRssMb this process's RSS sampled every 20 ms; refused: the ` +
          `operation's 413 (its 20 s budget passed on a busy machine); floorMs: the same items as the import left written again with ` +
          `BatchWriteItem alone right after it (writeFloor), ratioToFloor = ms / floorMs. Generated reports: ${FINDINGS} findings over ${RULES} rules, no HTTP messages.`,
        findingsGenerated: FINDINGS,
        read,
        operation,
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default section;
