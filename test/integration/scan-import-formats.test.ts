import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, baseUrl } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { auditTypes } from './app-helpers.ts';
import { createApp } from './scan-helpers.ts';
import { expectMatches, readBack, untriagedOf } from './import-helpers.ts';
import { WAPITI_FIXTURES, WAPITI_SAMPLES, wapitiExpected, wapitiFixture } from '../../scanner/test/wapiti-expected.ts';
import {
  burpExpected,
  fixturePath,
  formatsFixture,
  nucleiExpected,
  samplesOf,
  sarifExpected,
} from '../../scanner/test/formats-expected.ts';

// POST /api/v1/app/{appId}/scan/import and `hawk-scanner import` with the reports of tools other than ZAP
// (docs/IMPORTS.md): every real sample imported, recognised from its content, and read back through the public
// read operations against a count taken from the file itself; `format` for a document that could be several
// tools' reports; triage carried across imports of the same tool; bad reports refused with nothing stored.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const stateDirs: string[] = [];
afterAll(() => stateDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const importAs = (
  token: string,
  appId: string,
  env: string,
  report: string | Buffer,
  format?: string,
  contentType = 'text/plain',
) =>
  api('POST', `/api/v1/app/${appId}/scan/import`, {
    token,
    rawBody: report,
    contentType,
    query: format === undefined ? { env } : { env, format },
  });

const scanCount = async (tenant: Tenant, appId: string) => {
  const out = await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token, query: { appIds: appId } });
  expect(out.status).toBe(200);
  return out.body.applicationScanResults.length as number;
};

describe('Wapiti reports through the import operation', () => {
  it.each(WAPITI_SAMPLES)(
    '%s: recognised from its content; alerts, findings, CWE ids and requests as counted from the file',
    async (file) => {
      const tenant = await createTenant();
      const appId = await createApp(tenant, { name: 'wapiti' });
      const out = await importAs(tenant.token, appId, 'dast', wapitiFixture(file));
      expect(out.status, out.text).toBe(200);
      const expected = wapitiExpected(file);
      expect(out.body).toMatchObject({
        tool: 'wapiti',
        toolName: 'Wapiti',
        format: file.startsWith('wapiti-json') ? 'json' : 'xml',
        toolVersion: '3.0.4',
        zapVersion: '',
        alertsImported: expected.length,
        urisImported: expected.reduce((n, a) => n + a.uriCount, 0),
        scanResult: { scan: { status: 'COMPLETED', env: 'dast' } },
      });
      const back = await readBack(tenant.token, out.body.scanId);
      expectMatches(back, expected);
      expect(Object.keys(back.hashes).every((id) => id.startsWith('wapiti.'))).toBe(true);
      expect(back.result.scan).toMatchObject({ version: 'Wapiti 3.0.4' });
      expect(back.result.tags).toEqual(
        expect.arrayContaining([
          { name: 'importedFrom', value: `wapiti-${out.body.format}` },
          { name: 'toolVersion', value: '3.0.4' },
        ]),
      );
      const envs = await api('GET', `/api/v2/org/${tenant.orgId}/envs`, {
        token: tenant.token,
        query: { appIds: appId },
      });
      expect(envs.body.environments[0]).toMatchObject(untriagedOf(expected));
    },
    180_000,
  );

  it('the same scan as JSON and as XML gives the same finding hashes: triage of one applies to the other', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'wapiti twice', env: 'dev' });
    const json = await importAs(
      tenant.token,
      appId,
      'dev',
      wapitiFixture(WAPITI_SAMPLES.find((f) => f.includes('json'))!),
    );
    expect(json.status, json.text).toBe(200);
    const first = await readBack(tenant.token, json.body.scanId);
    const xss = first.hashes['wapiti.cross-site-scripting'];
    expect(xss).toHaveLength(4);
    const triage = await api(
      'POST',
      `/api/v1/org/${tenant.orgId}/app/${appId}/env/${json.body.envId}/findings/triage`,
      { token: tenant.token, body: { actions: [{ findingHash: xss[0], status: 'RISK_ACCEPTED', note: 'lab' }] } },
    );
    expect(triage.status, triage.text).toBe(200);
    const xml = await importAs(
      tenant.token,
      appId,
      'dev',
      wapitiFixture('wapiti-xml_3.0.4_local-node-target_GENERATED-here.xml'),
    );
    expect(xml.status, xml.text).toBe(200);
    const second = await readBack(tenant.token, xml.body.scanId);
    expect(second.hashes).toEqual(first.hashes);
    const uris = await api('GET', `/api/v1/scan/${xml.body.scanId}/alert/wapiti.cross-site-scripting`, {
      token: tenant.token,
    });
    const statuses = uris.body.applicationScanAlertUris.map((u: { findingHash: string; status: string }) => [
      u.findingHash === xss[0],
      u.status,
    ]);
    expect(statuses.filter(([triaged]: [boolean]) => triaged).map(([, s]: [boolean, string]) => s)).toEqual([
      'RISK_ACCEPTED',
    ]);
    expect(xml.body.scanResult.alertStats).toBeDefined();
  });
});

describe('Nuclei, Burp Suite and SARIF reports through the import operation', () => {
  const cases = [
    ...samplesOf('nuclei')
      .filter((f) => !f.includes('empty'))
      .map((f) => ['nuclei', f, nucleiExpected(f)] as const),
    ...samplesOf('burp').map((f) => ['burp', f, burpExpected(f)] as const),
    ...samplesOf('sarif')
      .filter((f) => sarifExpected(f).length === 1)
      .map((f) => ['sarif', f, sarifExpected(f)[0]] as const),
  ];
  it.each(cases)(
    '%s %s: recognised; findings, alerts and severities as counted from the file',
    async (tool, file, expected) => {
      const tenant = await createTenant();
      const appId = await createApp(tenant, { name: tool });
      const out = await importAs(tenant.token, appId, 'dev', formatsFixture(tool, file));
      expect(out.status, out.text).toBe(200);
      expect(out.body).toMatchObject({ tool, alertsImported: expected.alerts, urisImported: expected.findings });
      const back = await readBack(tenant.token, out.body.scanId);
      const bySeverity: Record<string, number> = {};
      for (const alert of back.alerts) bySeverity[alert.severity] = (bySeverity[alert.severity] ?? 0) + alert.uriCount;
      expect(bySeverity).toEqual(expected.bySeverity);
      const prefix = tool === 'sarif' ? out.body.toolName.toLowerCase().replace(/[^a-z0-9.]+/g, '-') : tool;
      expect(Object.keys(back.hashes).every((id) => id.startsWith(`${prefix}.`))).toBe(true);
    },
    180_000,
  );

  it('an empty Nuclei output is a scan without findings when named; a SARIF log of two runs names the CLI', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'edge' });
    const empty = formatsFixture('nuclei', 'nuclei-jsonl_empty-0-bytes_defectdojo.jsonl');
    const refused = await importAs(tenant.token, appId, 'dev', empty);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/the report is empty .*format=nuclei/);
    const none = await importAs(tenant.token, appId, 'dev', empty, 'nuclei');
    expect(none.status, none.text).toBe(200);
    expect(none.body).toMatchObject({ tool: 'nuclei', urisImported: 0, scanResult: { scan: { status: 'COMPLETED' } } });
    const lgtm = formatsFixture(
      'sarif',
      samplesOf('sarif').find((f) => f.includes('2-runs'))!,
    );
    const runs = await importAs(tenant.token, appId, 'dev', lgtm, undefined, 'application/sarif+json');
    expect(runs.status).toBe(400);
    expect(runs.body.message).toMatch(/^report: runs: the SARIF log has 2 runs, each a scan; .*hawk-scanner import/);
    expect(await scanCount(tenant, appId)).toBe(1);
  });
});

const burpWithHtml = formatsFixture('burp', 'burp-xml_2020.12.1_EDITED_html-response_turingsecure-short-scan.xml');

describe('recognising a report, or naming its tool', () => {
  // A JSON object that is both a ZAP report's shape (site) and a Wapiti report's (vulnerabilities, classifications).
  const both = JSON.stringify({
    site: [],
    classifications: {},
    vulnerabilities: {
      XSS: [
        { method: 'GET', path: '/q', level: 2, parameter: 'q', info: 'reflected', http_request: 'GET /q HTTP/1.1' },
      ],
    },
    infos: { target: 'http://both.test/', version: 'Wapiti 3.0.4' },
  });

  it('refuses a document that could be two tools’ reports, naming both, and imports it as the one named', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'ambiguous' });
    const before = await auditTypes(tenant);
    const refused = await importAs(tenant.token, appId, 'dev', both, undefined, 'application/json');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(
      /could be a report of ZAP or Wapiti: name it with format=zap or format=wapiti/,
    );
    expect(await auditTypes(tenant)).toEqual(before);
    expect(await scanCount(tenant, appId)).toBe(0);
    const named = await importAs(tenant.token, appId, 'dev', both, 'WAPITI', 'application/json');
    expect(named.status, named.text).toBe(200);
    expect(named.body).toMatchObject({ tool: 'wapiti', host: 'http://both.test', urisImported: 1 });
    const asZap = await importAs(tenant.token, appId, 'dev', both, 'zap', 'application/json');
    expect(asZap.status).toBe(400);
    expect(asZap.body.message).toMatch(/the report has no site/);
  });

  it.each([
    ['an unknown format', both, 'nessus', /^format: must be one of zap, wapiti, nuclei, burp, sarif/],
    [
      'another tool’s XML',
      '<?xml version="1.0"?><testsuites><testsuite/></testsuites>',
      undefined,
      /^report: not a report of a known tool \(ZAP, Wapiti.*\): an XML document with root element <testsuites>/,
    ],
    [
      'a Wapiti entry with a bad level',
      JSON.stringify({ classifications: {}, vulnerabilities: { XSS: [{ method: 'GET', path: '/', level: 'x' }] } }),
      undefined,
      /^report: vulnerabilities\["XSS"\]\[0\]: level "x" is not 0 to 4$/,
    ],
    [
      "Wapiti's OpenVAS-style output",
      wapitiFixture('wapiti-openvas-xml_3.0.x_empty_WRONG-FORMAT_defectdojo.xml'),
      undefined,
      /^report: not a Wapiti report: <report type="scan">/,
    ],
    // The real Burp sample whose HTML response (in CDATA) carries <!DOCTYPE imports (above); a
    // declaration that is one is still refused.
    [
      'a Burp report with a second <!DOCTYPE, declaring an entity, after its root',
      `${burpWithHtml}<!DOCTYPE x [<!ENTITY e "e">]>`,
      undefined,
      /^report: line \d+, column 1: a second <!DOCTYPE$/,
    ],
    [
      'a Burp report whose DTD declares entities (billion laughs)',
      burpWithHtml.replace('<!DOCTYPE issues [', '<!DOCTYPE issues [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">'),
      undefined,
      /^report: line 3, column 19: an entity declaration \(<!ENTITY\) in the document type declaration is refused/,
    ],
    [
      'a Burp report whose DTD declares an external entity (XXE)',
      burpWithHtml.replace('<!DOCTYPE issues [', '<!DOCTYPE issues [<!ENTITY x SYSTEM "file:///etc/passwd">'),
      undefined,
      /^report: line 3, column 19: an entity declaration/,
    ],
    [
      'a Burp report with an external DTD',
      burpWithHtml.replace('<!DOCTYPE issues [', '<!DOCTYPE issues SYSTEM "http://127.0.0.1/x.dtd" ['),
      undefined,
      /^report: line 3, column 18: an external identifier/,
    ],
  ])('%s: 400 naming what is wrong, nothing stored', async (_what, body, format, message) => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'bad' });
    const before = await auditTypes(tenant);
    const out = await importAs(tenant.token, appId, 'new-env', body, format);
    expect(out.status, out.text).toBe(400);
    expect(out.body.message).toMatch(message);
    expect(await auditTypes(tenant)).toEqual(before);
    expect(await scanCount(tenant, appId)).toBe(0);
  });
});

describe('hawk-scanner import with other tools’ reports', () => {
  const run = (args: string[], tenant: Tenant) => {
    const stateDir = mkdtempSync(join(tmpdir(), 'hawk-import-state-'));
    stateDirs.push(stateDir);
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(ROOT, 'scanner/bin/hawk-scanner.mjs'), 'import', ...args], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH!,
          HAWK_API_KEY: tenant.apiKey,
          HAWK_API_URL: baseUrl(),
          HAWK_STATE_DIR: stateDir,
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  };

  it('imports a Wapiti report as the operation does; --format names the tool; a SARIF log of two runs as two scans', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'cli wapiti' });
    const file = 'wapiti-xml_3.0.4_local-node-target_GENERATED-here.xml';
    const out = await run(['--app', appId, '--env', 'ci', '--format', 'wapiti', join(WAPITI_FIXTURES, file)], tenant);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(
      /\(Wapiti xml 3\.0\.4\) imported as scan [0-9a-f-]{36} of environment ci: 6 alerts, 14 findings/,
    );
    const scanId = /imported as scan ([0-9a-f-]{36})/.exec(out.stdout)![1];
    expectMatches(await readBack(tenant.token, scanId), wapitiExpected(file));
    // A SARIF log of two runs: two scans.
    const lgtm = samplesOf('sarif').find((f) => f.includes('2-runs'))!;
    const runs = await run(['--app', appId, '--env', 'sast', fixturePath('sarif', lgtm)], tenant);
    expect(runs.code, runs.stderr).toBe(0);
    const expected = sarifExpected(lgtm);
    expect(runs.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `\\(run 1 of 2\\) \\(LGTM\\.com sarif 1\\.26\\.0-SNAPSHOT\\) imported as scan .*: ${expected[0].alerts} alerts, ${expected[0].findings} findings`,
        ),
      ),
      expect.stringMatching(
        new RegExp(`\\(run 2 of 2\\) .*: ${expected[1].alerts} alerts, ${expected[1].findings} findings`),
      ),
    ]);
    const wrong = await run(['--app', appId, '--env', 'ci', '--format', 'zap', join(WAPITI_FIXTURES, file)], tenant);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/is not an importable report: not a ZAP XML report: the root element is <report>/);
  });
});
