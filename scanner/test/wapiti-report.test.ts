import { describe, expect, it } from 'vitest';
import { parseReport, ReportError } from '../src/reports/index.ts';
import { WAPITI_SAMPLES as SAMPLES, wapitiEntries, wapitiExpected, wapitiFixture } from './wapiti-expected.ts';

// The importer's reading of every real Wapiti sample (scanner/test/fixtures/wapiti, see SOURCES.md there) against
// a count taken from the file itself without the importer's parser (XML cut at its category and entry tags, JSON
// with JSON.parse), and its refusals of bad input.

const fixture = wapitiFixture;
const entriesOf = wapitiEntries;
const summary = (report: ReturnType<typeof parseReport>) =>
  report.alerts
    .map((a) => ({
      name: a.name,
      severity: a.severity,
      cweId: a.cweId,
      uriCount: a.uris.length,
      uris: a.uris.map((u) => u.uri).sort(),
      messages: a.uris.map((u) => [u.uri, u.requestHeader.split('\n')[0].trim(), ''].join('\n')).sort(),
    }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.severity.localeCompare(b.severity));

describe('Wapiti reports', () => {
  it('the samples are the ones SOURCES.md lists', () => {
    expect(SAMPLES).toHaveLength(5);
  });

  it.each(SAMPLES)('%s: alerts, severities and findings as counted from the file', (file) => {
    const report = parseReport(fixture(file));
    expect(report).toMatchObject({ tool: 'wapiti', toolName: 'Wapiti', toolVersion: '3.0.4' });
    expect(report.format).toBe(file.startsWith('wapiti-json') ? 'json' : 'xml');
    const want = wapitiExpected(file);
    expect(summary(report)).toEqual(want);
    expect(report.uriCount).toBe(want.reduce((n, a) => n + a.uriCount, 0));
  });

  it('counts from SOURCES.md: entries by level, duplicates counted once', () => {
    const counts = (file: string) => {
      const { entries } = entriesOf(file);
      return { entries: entries.length, findings: parseReport(fixture(file)).uriCount };
    };
    // #1/#2: 13 vulnerabilities + 1 anomaly; #3: 15 entries of which 3 x 5 identical; #4: 8, 4 + 2 + 2 identical.
    expect(counts('wapiti-json_3.0.4_local-node-target_GENERATED-here.json')).toEqual({ entries: 14, findings: 14 });
    expect(counts('wapiti-xml_3.0.4_local-node-target_GENERATED-here.xml')).toEqual({ entries: 14, findings: 14 });
    expect(counts('wapiti-xml_3.0.4_juice-shop_defectdojo-juicyshop.xml')).toEqual({ entries: 15, findings: 3 });
    expect(counts('wapiti-xml_3.0.4_demo-defectdojo_defectdojo-demo.xml')).toEqual({ entries: 8, findings: 3 });
    const juice = parseReport(fixture('wapiti-xml_3.0.4_juice-shop_defectdojo-juicyshop.xml'));
    expect(juice.skipped.map((s) => s.reason)).toContain(
      '4 duplicate instances of alert wapiti.content-security-policy-configuration counted once',
    );
  });

  it('maps levels, keeps CWE ids, descriptions, references and requests, and names plugins per tool', () => {
    const json = parseReport(fixture('wapiti-json_3.0.4_local-node-target_GENERATED-here.json'));
    const xml = parseReport(fixture('wapiti-xml_3.0.4_local-node-target_GENERATED-here.xml'));
    expect(json.host).toBe('http://127.0.0.1:18080');
    // The same scan run twice (-f json, -f xml): the same alerts, ids and findings.
    const shape = (r: typeof json) =>
      r.alerts.map((a) => [a.pluginId, a.severity, a.cweId, a.uris.map((u) => [u.requestMethod, u.uri, u.param])]);
    expect(shape(xml)).toEqual(shape(json));
    const byId = new Map(json.alerts.map((a) => [a.pluginId, a]));
    const xss = byId.get('wapiti.cross-site-scripting')!;
    expect(xss).toMatchObject({ name: 'Cross Site Scripting', severity: 'Medium', cweId: '79' });
    expect(xss.references).toContain('https://cwe.mitre.org/data/definitions/79.html');
    expect(xss.description).toMatch(/^Cross-site scripting \(XSS\)/);
    expect(xss.solution).not.toBe('');
    const post = xss.uris.find((u) => u.requestMethod === 'POST' && u.param === 'msg')!;
    expect(post.uri).toBe('http://127.0.0.1:18080/comment');
    expect(post.requestHeader).toMatch(/^POST \/comment HTTP\/1\.1\nHost: 127\.0\.0\.1:18080/);
    expect(post.requestBody).toMatch(/(^|&)msg=/);
    expect(post.otherInfo).toMatch(/^XSS vulnerability found via injection in the parameter msg\n\nReproduce: curl /);
    // An anomaly (level 3) is a finding too, High.
    expect(byId.get('wapiti.internal-server-error')).toMatchObject({ severity: 'High', name: 'Internal Server Error' });
    expect(
      byId
        .get('wapiti.http-secure-headers')!
        .uris.map((u) => u.otherInfo.split('\n')[0])
        .sort(),
    ).toEqual([
      'Strict-Transport-Security is not set',
      'X-Content-Type-Options is not set',
      'X-Frame-Options is not set',
      'X-XSS-Protection is not set',
    ]);
    // Several CWE references: the first is the alert's.
    const weak = parseReport(fixture('wapiti-xml_3.0.4_SYNTHETIC_multi-cwe_defectdojo.xml')).alerts[0];
    expect(weak).toMatchObject({ pluginId: 'wapiti.weak-credentials', cweId: '798' });
    expect(weak.uris[0].param).toBe('username=admin&password=admin');
  });

  it('names the header or cookie of an entry without a parameter: each is a finding of its own', () => {
    const { alerts } = parseReport(fixture('wapiti-json_3.0.4_local-node-target_GENERATED-here.json'));
    const params = (id: string) =>
      alerts
        .find((a) => a.pluginId === id)!
        .uris.map((u) => u.param)
        .sort();
    expect(params('wapiti.http-secure-headers')).toEqual([
      'Strict-Transport-Security',
      'X-Content-Type-Options',
      'X-Frame-Options',
      'X-XSS-Protection',
    ]);
    expect(params('wapiti.httponly-flag-cookie')).toEqual(['lastcomment', 'session']);
    expect(params('wapiti.content-security-policy-configuration')).toEqual(['CSP']);
    expect(params('wapiti.cross-site-scripting')).toEqual(['entry', 'msg', 'name', 'q']);
  });

  it('maps every level 0 to 4, a category with two levels as two alerts', () => {
    const entry = (level: number, path: string) => ({
      method: 'GET',
      path,
      info: `level ${level}`,
      level,
      parameter: '',
      http_request: `GET ${path} HTTP/1.1\nHost: a.test`,
    });
    const report = parseReport(
      JSON.stringify({
        classifications: {},
        vulnerabilities: { 'SQL Injection': [entry(4, '/a'), entry(3, '/b'), entry(2, '/c')] },
        anomalies: { Odd: [entry(1, '/d')] },
        additionals: { 'Fingerprint web technology': [entry(0, '/e')] },
        infos: { target: 'https://a.test/app/', version: 'Wapiti 3.3.2' },
      }),
    );
    expect(report.toolVersion).toBe('3.3.2');
    expect(report.alerts.map((a) => [a.pluginId, a.severity, a.uris.map((u) => u.uri)])).toEqual([
      ['wapiti.sql-injection', 'High', ['https://a.test/a', 'https://a.test/b']],
      ['wapiti.sql-injection.medium', 'Medium', ['https://a.test/c']],
      ['wapiti.odd', 'Low', ['https://a.test/d']],
      ['wapiti.fingerprint-web-technology', 'Info', ['https://a.test/e']],
    ]);
  });

  it.each([
    [
      "Wapiti's OpenVAS-style output",
      fixture('wapiti-openvas-xml_3.0.x_empty_WRONG-FORMAT_defectdojo.xml'),
      /^not a Wapiti report: <report type="scan"> is Wapiti's OpenVAS-style output/,
    ],
    [
      'a level out of range',
      JSON.stringify({ classifications: {}, vulnerabilities: { XSS: [{ method: 'GET', path: '/', level: 7 }] } }),
      /^vulnerabilities\["XSS"\]\[0\]: level "7" is not 0 to 4$/,
    ],
    [
      'entries that are not a list',
      JSON.stringify({ classifications: {}, vulnerabilities: { XSS: { method: 'GET' } } }),
      /^vulnerabilities\["XSS"\]: must be a list of entries$/,
    ],
    [
      'a document type declaration',
      '<?xml version="1.0"?>\n<!DOCTYPE report [<!ENTITY x "y">]>\n<report type="security"/>',
      /^line 2, column 1: XML with a DOCTYPE declaration is refused/,
    ],
    [
      'a key that JSON.parse makes an own __proto__',
      '{"classifications":{},"vulnerabilities":{"__proto__":[{"method":"GET","path":"/","level":9}]}}',
      /^vulnerabilities\["__proto__"\]\[0\]: level "9" is not 0 to 4$/,
    ],
  ])('%s: refused, naming where', (_what, text, message) => {
    expect(() => parseReport(text)).toThrow(ReportError);
    expect(() => parseReport(text)).toThrow(message);
  });
});
