import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Log, Result } from 'sarif';
import { api, baseUrl } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { alert, completeScan, createApp, reportAlerts, scanOnce, startScan } from './scan-helpers.ts';
import { sarifSchemaErrors } from '../../scanner/test/sarif-schema.ts';
import { hostedScanWithCoverage, sampleCoverage } from './hosted-run-helpers.ts';
import { importReport } from './import-helpers.ts';
import { fixture } from '../../scanner/test/zap-expected.ts';
import { digestItems, dropDigest, recordOf } from './scan-digests.ts';
import { putScanDigest, scanDigestOf } from '../../shared/scans/scan-digest.ts';

// GET /api/v1/scan/{scanId}/sarif and `hawk-scanner sarif` (docs/SARIF-EXPORT.md): a reported scan with findings,
// some triaged, read back as SARIF, checked against the official schema and finding by finding.

const DESCRIPTION = `openapi: 3.0.3
info:
  title: Items
  version: 1.0.0
paths:
  /items/{name}:
    get:
      operationId: getItem
      parameters:
        - name: name
          in: path
          required: true
          schema:
            type: string
      responses:
        '200':
          description: Success
`;
const OPERATION_LINE = DESCRIPTION.split('\n').indexOf('    get:') + 1;

/** One alert whose URIs are the given paths (each its own finding; under a described template, one issue). */
function alertOn(pluginId: string, severity: 'High' | 'Medium' | 'Low', paths: string[]) {
  const base = alert(pluginId, severity, paths.length);
  return { ...base, uris: base.uris.map((u, i) => ({ ...u, uri: paths[i] })) };
}

async function scanWithFindings(tenant: Tenant) {
  const appId = await createApp(tenant);
  const uploaded = await api('POST', `/api/v1/oas/${appId}/upload`, {
    token: tenant.token,
    rawBody: DESCRIPTION,
    contentType: 'text/plain',
  });
  expect(uploaded.status, uploaded.text).toBe(200);
  const started = await startScan(tenant.token, appId);
  await reportAlerts(tenant.token, started.scanId, [
    alertOn('40012', 'High', ['/items/apple', '/items/pear', '/items/plum']),
    alertOn('10038', 'Medium', ['/about', '/contact']),
  ]);
  await completeScan(tenant.token, started.scanId);
  const hashes: Record<string, string> = {};
  for (const pluginId of ['40012', '10038']) {
    const out = await api('GET', `/api/v1/scan/${started.scanId}/alert/${pluginId}`, { token: tenant.token });
    expect(out.status).toBe(200);
    for (const u of out.body.applicationScanAlertUris) hashes[u.uri] = u.findingHash;
  }
  return { appId, ...started, hashes };
}

async function sarifOf(token: string, scanId: string, query: Record<string, string | number> = {}) {
  const out = await api('GET', `/api/v1/scan/${scanId}/sarif`, { token, query });
  expect(out.status, out.text).toBe(200);
  expect(out.headers.get('content-type')).toMatch(/^application\/sarif\+json/);
  return { log: JSON.parse(out.text) as Log, headers: out.headers };
}

const byHash = (results: Result[]) =>
  new Map(results.map((r) => [r.partialFingerprints!['hawkFindingHash/v1'], r] as const));

describe('GET /api/v1/scan/{scanId}/sarif', () => {
  it("puts a hosted scan's coverage verdict in the run's invocation properties; a scan without a record has none", async () => {
    const tenant = await createTenant();
    const { scanId } = await hostedScanWithCoverage(tenant);
    const { log } = await sarifOf(tenant.token, scanId);
    expect(sarifSchemaErrors(log)).toEqual([]);
    const { verdict, reasons, pages, requests, authenticatedRequests } = sampleCoverage;
    // executionSuccessful stays the scan's own success: an AUTH_DEGRADED scan still ran.
    expect(log.runs[0].invocations).toEqual([
      expect.objectContaining({
        executionSuccessful: true,
        properties: { coverage: { verdict, reasons, pages, requests, authenticatedRequests } },
      }),
    ]);

    const appId = await createApp(tenant);
    const reported = await startScan(tenant.token, appId);
    await completeScan(tenant.token, reported.scanId);
    const plain = await sarifOf(tenant.token, reported.scanId);
    expect(plain.log.runs[0].invocations![0].properties).toBeUndefined();
  });

  it("names an imported report's tool and version, and places its findings", async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const report = readFileSync(
      fileURLToPath(
        new URL(
          '../../scanner/test/fixtures/burp/burp-xml_2020.12.1_plain-reqresp_turingsecure-short-scan.xml',
          import.meta.url,
        ),
      ),
    );
    const imported = await api('POST', `/api/v1/app/${appId}/scan/import`, {
      token: tenant.token,
      rawBody: report,
      contentType: 'application/xml',
      query: { env: 'dev' },
    });
    expect(imported.status, imported.text).toBe(200);
    const { log } = await sarifOf(tenant.token, imported.body.scanId);
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(log.runs[0].tool.driver).toMatchObject({ name: 'Burp Suite', version: '2020.12.1' });
    expect(log.runs[0].results).toHaveLength(1);
    expect(log.runs[0].results![0].locations![0].physicalLocation!.artifactLocation!.uri).toBe('stackhawk.yml');
  });

  it("shows an imported report's text as text in help.markdown: its links and images do not render", async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const hostile =
      'Read [x](https://evil.test/login) ![](https://evil.test/pixel.png) **now** <img src=x> www.evil.test';
    // As Burp writes text in its HTML: the tag's brackets as entities (the importer reads the HTML as text).
    const html = hostile.replace('<', '&lt;').replace('>', '&gt;');
    const report = readFileSync(
      fileURLToPath(
        new URL(
          '../../scanner/test/fixtures/burp/burp-xml_2020.12.1_plain-reqresp_turingsecure-short-scan.xml',
          import.meta.url,
        ),
      ),
      'utf8',
    ).replace(
      /<issueBackground><!\[CDATA\[[\s\S]*?\]\]><\/issueBackground>/,
      `<issueBackground><![CDATA[<p>${html}</p>]]></issueBackground>`,
    );
    const imported = await api('POST', `/api/v1/app/${appId}/scan/import`, {
      token: tenant.token,
      rawBody: Buffer.from(report),
      contentType: 'application/xml',
      query: { env: 'dev' },
    });
    expect(imported.status, imported.text).toBe(200);
    const { log } = await sarifOf(tenant.token, imported.body.scanId);
    expect(sarifSchemaErrors(log)).toEqual([]);
    const [rule] = log.runs[0].tool.driver.rules!;
    expect(rule.help!.text).toContain(hostile); // the plain text as imported
    const markdown = rule.help!.markdown!;
    expect(markdown).toContain(
      'Read \\[x\\]\\(https\\://evil\\.test/login\\) \\!\\[\\]\\(https\\://evil\\.test/pixel\\.png\\) ' +
        '\\*\\*now\\*\\* \\<img src\\=x\\> www\\.evil\\.test',
    );
    // No link, image, HTML or bare URL of the report's survives unescaped; the CWE link is ours.
    const cwe = 'CWE: [CWE-16](https://cwe.mitre.org/data/definitions/16.html)';
    expect(markdown).toContain(cwe);
    expect(markdown.replace(cwe, '')).not.toMatch(/(^|[^\\])(\[|!\[|<img|https?:\/\/evil|www\.evil)/);
  });

  it('answers a valid SARIF 2.1.0 log: a result per finding, fingerprints, suppressions, locations, rules', async () => {
    const tenant = await createTenant();
    const { appId, scanId, envId, hashes } = await scanWithFindings(tenant);
    const triaged = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
      token: tenant.token,
      body: {
        actions: [
          { findingHash: hashes['/items/pear'], status: 'FALSE_POSITIVE', note: 'test data only' },
          { findingHash: hashes['/contact'], status: 'RISK_ACCEPTED', note: 'behind the VPN' },
          { findingHash: hashes['/about'], status: 'ADD_COMMENT', note: 'look later' },
        ],
      },
    });
    expect(triaged.status, triaged.text).toBe(200);

    const { log, headers } = await sarifOf(tenant.token, scanId);
    expect(headers.get('content-encoding')).toBe('gzip'); // fetch accepts gzip, and undoes it
    const plain = await api('GET', `/api/v1/scan/${scanId}/sarif`, {
      token: tenant.token,
      headers: { 'accept-encoding': 'identity', accept: 'application/json' },
    });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(plain.body).toEqual(log);
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(headers.get('x-sarif-parts')).toBe('1');
    expect(log.version).toBe('2.1.0');
    expect(log.runs).toHaveLength(1);
    const [run] = log.runs;
    expect(run.automationDetails?.id).toBe(`${appId}/dev`);
    expect(run.results).toHaveLength(5);
    const results = byHash(run.results!);
    expect([...results.keys()].sort()).toEqual(Object.values(hashes).sort());

    // Most severe first; levels from our severities.
    expect(run.results!.map((r) => r.level)).toEqual(['error', 'error', 'error', 'warning', 'warning']);

    // Triaged: false positives and accepted risks are suppressed with their note; a comment is not.
    expect(results.get(hashes['/items/pear'])!.suppressions).toEqual([
      expect.objectContaining({
        kind: 'external',
        status: 'accepted',
        justification: 'test data only',
        properties: expect.objectContaining({ triageStatus: 'FALSE_POSITIVE', triagedBy: tenant.userId }),
      }),
    ]);
    expect(results.get(hashes['/contact'])!.suppressions?.[0]).toMatchObject({
      justification: 'behind the VPN',
      properties: { triageStatus: 'RISK_ACCEPTED' },
    });
    expect(results.get(hashes['/about'])!.suppressions).toBeUndefined();
    // The description's /items/{name} makes apple, pear and plum one issue (docs/ISSUES.md): pear's triage is theirs.
    for (const path of ['/items/apple', '/items/plum'])
      expect(results.get(hashes[path])!.suppressions?.[0]?.properties).toMatchObject({
        triageStatus: 'FALSE_POSITIVE',
      });

    // Every result has a location: the operation's line in the description, else the scan configuration.
    for (const path of ['/items/apple', '/items/pear', '/items/plum']) {
      const [location] = results.get(hashes[path])!.locations!;
      expect(location.physicalLocation).toEqual({
        artifactLocation: { uri: 'openapi.yaml' },
        region: { startLine: OPERATION_LINE },
      });
      expect(location.logicalLocations?.map((l) => l.fullyQualifiedName)).toEqual([
        'getItem',
        `GET https://target.test${path}`,
      ]);
    }
    for (const path of ['/about', '/contact']) {
      const [location] = results.get(hashes[path])!.locations!;
      expect(location.physicalLocation?.artifactLocation?.uri).toBe('stackhawk.yml');
      expect(location.logicalLocations).toEqual([
        expect.objectContaining({ fullyQualifiedName: `GET https://target.test${path}`, kind: 'resource' }),
      ]);
    }

    // Rules: plugin, CWE (tag and taxonomy), help and references.
    const rule = run.tool.driver.rules!.find((r) => r.id === '40012')!;
    expect(rule).toMatchObject({
      name: 'Plugin 40012',
      helpUri: 'https://owasp.org/x',
      defaultConfiguration: { level: 'error' },
      properties: { pluginId: '40012', 'security-severity': '8.0' },
    });
    expect(rule.properties!.tags).toContain('external/cwe/cwe-79');
    expect(rule.help!.text).toContain('About 40012');
    expect(rule.help!.text).toContain('https://owasp.org/x');
    expect(rule.relationships?.[0].target).toEqual({ id: '79', toolComponent: { name: 'CWE' } });
    expect(run.taxonomies?.[0].taxa?.map((t) => t.id)).toEqual(['79']);
    for (const result of run.results!) expect(run.tool.driver.rules![result.ruleIndex!].id).toBe(result.ruleId);

    // Repository paths of the description and the configuration; a part past the last is unknown.
    const placed = (await sarifOf(tenant.token, scanId, { oasPath: 'api/items.yaml', configPath: 'ci/hawk.yml' })).log;
    const uris = new Set(placed.runs[0].results!.map((r) => r.locations![0].physicalLocation!.artifactLocation!.uri));
    expect([...uris].sort()).toEqual(['api/items.yaml', 'ci/hawk.yml']);
    const past = await api('GET', `/api/v1/scan/${scanId}/sarif`, { token: tenant.token, query: { part: 2 } });
    expect(past.status).toBe(404);
    for (const oasPath of ['../secrets.yaml', '/etc/passwd', 'a//b']) {
      const bad = await api('GET', `/api/v1/scan/${scanId}/sarif`, { token: tenant.token, query: { oasPath } });
      expect(bad.status, oasPath).toBe(400);
      expect(bad.body.message).toContain('oasPath');
    }
  });

  it("sets each result's baselineState against the previous completed scan of the stream: new, unchanged, updated, and the absent counted", async () => {
    const tenant = await createTenant();
    const { appId, scanId: first, hashes } = await scanWithFindings(tenant);
    const alone = await sarifOf(tenant.token, first); // no baseline: no baselineState
    expect(alone.log.runs[0].results!.every((r) => r.baselineState === undefined)).toBe(true);
    const second = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, second.scanId, [
      alertOn('40012', 'High', ['/items/apple', '/items/pear']), // plum fixed
      alertOn('10038', 'Low', ['/about', '/contact']), // was Medium
      alertOn('10020', 'Medium', ['/items/fig']),
    ]);
    await completeScan(tenant.token, second.scanId);
    const { log } = await sarifOf(tenant.token, second.scanId);
    expect(sarifSchemaErrors(log)).toEqual([]);
    const states = Object.fromEntries(
      log.runs[0].results!.map((r) => [
        (r.properties as { url: string }).url.replace(/^https?:\/\/[^/]+/, ''),
        r.baselineState,
      ]),
    );
    expect(states).toEqual({
      '/items/apple': 'unchanged',
      '/items/pear': 'unchanged',
      '/about': 'updated',
      '/contact': 'updated',
      '/items/fig': 'new',
    });
    // The fixed plum is counted, not listed: an uploaded result would keep its code-scanning alert open.
    expect(byHash(log.runs[0].results!).has(hashes['/items/plum'])).toBe(false);
    expect(log.runs[0].properties).toMatchObject({ absentResults: 1 });
    expect(alone.log.runs[0].properties).not.toHaveProperty('absentResults');
  });

  it("answers 404 for another organization's scan, naming nothing of it, and refuses a member without read:scan", async () => {
    const [owner, other] = await Promise.all([createTenant(), createTenant()]);
    const { scanId } = await scanWithFindings(owner);
    const out = await api('GET', `/api/v1/scan/${scanId}/sarif`, { token: other.token });
    expect(out.status).toBe(404);
    expect(out.body).toEqual({ message: `scan ${scanId} not found` });
    const member = await addUserTo(owner.orgId, ['read:application']);
    const denied = await api('GET', `/api/v1/scan/${scanId}/sarif`, { token: member.token });
    expect(denied.status, denied.text).toBe(401); // as every scan-read operation answers a missing permission
  });
});

const BIN = fileURLToPath(new URL('../../scanner/bin/hawk-scanner.mjs', import.meta.url));
const cli = (args: string[], apiKey: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, 'sarif', ...args],
      { env: { PATH: process.env.PATH!, HAWK_API_KEY: apiKey, HAWK_API_URL: baseUrl() }, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr }),
    );
  });

describe('hawk-scanner sarif', () => {
  it("writes the environment's latest findings to stdout, or a given scan's to --out", async () => {
    const tenant = await createTenant();
    const { appId, scanId, hashes } = await scanWithFindings(tenant);

    const latest = await cli(['--app', appId, '--env', 'DEV'], tenant.apiKey);
    expect(latest.code, latest.stderr).toBe(0);
    const log = JSON.parse(latest.stdout) as Log;
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(log.runs[0].properties?.scanId).toBe(scanId);
    expect([...byHash(log.runs[0].results!).keys()].sort()).toEqual(Object.values(hashes).sort());

    const dir = mkdtempSync(join(tmpdir(), 'hawk-sarif-'));
    try {
      const out = join(dir, 'results.sarif');
      const run = await cli(
        ['--app', appId, '--env', 'dev', '--scan', scanId, '--out', out, '--oas-path', 'api/items.yaml'],
        tenant.apiKey,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(`5 findings written to ${out}`);
      const written = JSON.parse(readFileSync(out, 'utf8')) as Log;
      expect(sarifSchemaErrors(written)).toEqual([]);
      expect(written.runs[0].results![0].locations![0].physicalLocation!.artifactLocation!.uri).toBe('api/items.yaml');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const missing = await cli(['--app', appId, '--env', 'nope'], tenant.apiKey);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`application ${appId} has no environment nope`);
    const usage = await cli(['--app', 'x', '--env', 'dev'], tenant.apiKey);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--app must be the application id');
  });

  // The environments view lists STANDARD applications unless asked, so a CLOUD application "had no
  // environment".
  it("finds a CLOUD application's environment and its latest scan", async () => {
    const tenant = await createTenant();
    const created = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: { name: 'hosted', env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: 'http://127.0.0.1:9/' },
    });
    expect(created.status, created.text).toBe(200);
    const appId = created.body.applicationId as string;
    const started = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, started.scanId, [alertOn('40012', 'High', ['/items/apple'])]);
    await completeScan(tenant.token, started.scanId);

    const latest = await cli(['--app', appId, '--env', 'dev'], tenant.apiKey);
    expect(latest.code, latest.stderr).toBe(0);
    const log = JSON.parse(latest.stdout) as Log;
    expect(log.runs[0].properties?.scanId).toBe(started.scanId);
    expect(log.runs[0].results).toHaveLength(1);
  });

  // The export reads a scan's digest when it has a usable one (scans/scan-digest.ts, the diff's rule), else its URIs:
  // the same log, byte for byte, for imported and reported scans and their baselines.
  describe("from the scans' digests", () => {
    const sarifText = async (token: string, scanId: string) => {
      const out = await api('GET', `/api/v1/scan/${scanId}/sarif`, { token });
      expect(out.status, out.text).toBe(200);
      return out.text;
    };

    it('gives the log the URIs give, and ignores a stale digest', async () => {
      const tenant = await createTenant();
      const appId = await createApp(tenant, { name: 'digested' });
      const full = fixture('zap-xml_2.10.0_juice-shop_defectdojo-juicy2.xml').toString('utf8');
      const items = [...full.matchAll(/<alertitem>[\s\S]*?<\/alertitem>/g)];
      const a = await importReport(tenant.token, appId, 'staging', full);
      const b = await importReport(tenant.token, appId, 'staging', full.replace(items[2][0], ''));
      expect([a.status, b.status]).toEqual([200, 200]);
      // Reported scans whose findings have several URIs (numeric segments: one finding per alert), the first
      // standing for it, and one of them no longer reported by the second scan.
      const paths = (from: number) => [`/contact/${from}?x=1`, `/contact/${from + 1}?x=2`, '/about'];
      const c = await scanOnce(tenant.token, appId, [
        alert('40012', 'High', 6, 3),
        alertOn('10038', 'Medium', paths(7)),
        alert('10021', 'Low', 2, 0, '693'),
      ]);
      const d = await scanOnce(tenant.token, appId, [
        alert('40012', 'Medium', 4, 5),
        alertOn('10038', 'Medium', paths(1)),
      ]);
      for (const [scan, base] of [
        [b.body.scanId, a.body.scanId],
        [d.scanId, c.scanId],
      ] as const) {
        for (const id of [scan, base])
          expect((await digestItems(id)).map((item) => item.entity)).toEqual(['scanDigest']);
        const fromDigests = await sarifText(tenant.token, scan);
        const log = JSON.parse(fromDigests) as Log;
        const results = log.runs[0].results!;
        expect(results.length).toBeGreaterThan(0);
        expect(new Set(results.map((r) => r.baselineState))).toContain('unchanged');
        expect(log.runs[0].properties?.absentResults ?? 0).toBeGreaterThan(0);
        // The export reads the scan's digest: its rows marked, the log shows the marks.
        const record = await recordOf(scan);
        const digest = (await scanDigestOf(record))!;
        const plugins = [...digest.plugins].map(([pluginId, p]) => ({ pluginId, ...p }));
        await putScanDigest(
          record,
          digest.rows.map((row) => ({ ...row, uri: `${row.uri}#from-digest` })),
          plugins,
          digest.templates,
        );
        const marked = (JSON.parse(await sarifText(tenant.token, scan)) as Log).runs[0].results!;
        expect(marked).toHaveLength(results.length);
        expect(marked.every((r) => String(r.properties?.url).endsWith('#from-digest'))).toBe(true);
        await putScanDigest(record, digest.rows, plugins, digest.templates);
        expect(await sarifText(tenant.token, scan)).toBe(fromDigests);
        // A digest of another count of URIs is not read (an empty one would make every finding absent).
        const baseRecord = await recordOf(base);
        await putScanDigest({ ...baseRecord, reportedUris: baseRecord.reportedUris + 1 }, [], [], '');
        expect(await scanDigestOf(baseRecord)).toBeUndefined();
        expect(await sarifText(tenant.token, scan)).toBe(fromDigests);
        // Without digests (scans published before them), the URIs give the same log, byte for byte.
        await Promise.all([scan, base].map(dropDigest));
        expect(await digestItems(scan)).toEqual([]);
        expect(await sarifText(tenant.token, scan)).toBe(fromDigests);
      }
    }, 120_000);
  });
});
