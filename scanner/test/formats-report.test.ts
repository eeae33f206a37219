import { describe, expect, it } from 'vitest';
import { parseReport, parseReports, ReportError, type ImportedReport } from '../src/reports/index.ts';
import { burpExpected, formatsFixture, nucleiExpected, samplesOf, sarifExpected } from './formats-expected.ts';

// The importers of Nuclei, Burp Suite and SARIF on every real sample (scanner/test/fixtures/<tool>, SOURCES.md
// there) against counts taken from the files themselves (formats-expected.ts), the mapping of each tool's fields,
// and refusals of bad input naming where.

const counted = (report: ImportedReport) => {
  const bySeverity: Record<string, number> = {};
  for (const alert of report.alerts) bySeverity[alert.severity] = (bySeverity[alert.severity] ?? 0) + alert.uris.length;
  return { findings: report.uriCount, bySeverity, alerts: report.alerts.length };
};

describe('Nuclei', () => {
  const samples = samplesOf('nuclei').filter((f) => !f.includes('empty'));
  it.each(samples)('%s: findings, severities and alerts as counted from the file', (file) => {
    const report = parseReport(formatsFixture('nuclei', file));
    expect(report).toMatchObject({ tool: 'nuclei', format: file.includes('-je-') ? 'json' : 'jsonl' });
    expect(counted(report)).toEqual(nucleiExpected(file));
  });

  it('reads every version’s field names, classification ids, requests and the out-of-band interaction', () => {
    const old = parseReport(
      formatsFixture(
        'nuclei',
        samples.find((f) => f.includes('underscore-keys'))!,
      ),
    );
    expect(old.alerts.map((a) => a.pluginId)).toContain('nuclei.tech-detect.animate.css');
    const v2 = parseReport(
      formatsFixture(
        'nuclei',
        samples.find((f) => f.includes('classification'))!,
      ),
    );
    const cve = v2.alerts.find((a) => a.pluginId === 'nuclei.CVE-2018-15473')!;
    expect(cve).toMatchObject({ severity: 'Medium', cweId: '362', name: 'OpenSSH Username Enumeration v7.7' });
    expect(cve.description).toMatch(/^CVE-2018-15473\n\n/);
    expect(cve.uris[0]).toMatchObject({ uri: 'nuclei-example.com:22', requestMethod: 'NETWORK' });
    const log4shell = parseReport(
      formatsFixture(
        'nuclei',
        samples.find((f) => f.includes('log4shell'))!,
      ),
    );
    expect(log4shell.alerts[0]).toMatchObject({ pluginId: 'nuclei.CVE-2021-44228', severity: 'High' });
    expect(log4shell.alerts[0].uris[0].otherInfo).toMatch(/Out-of-band interaction: dns from /);
    const dvwa = parseReport(
      formatsFixture(
        'nuclei',
        samples.find((f) => f.includes('14071'))!,
      ),
    );
    expect(dvwa.host).toBe('http://dvwa_dvwa_1');
    const login = dvwa.alerts.find((a) => a.pluginId === 'nuclei.dvwa-default-login')!;
    expect(login.uris[0].requestHeader).toMatch(/^POST \/login\.php HTTP\/1\.1\r\n/);
    expect(login.uris[0].responseHeader).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    // A finding with nowhere of its own (the dns template) is filed at the scan's host; `url` "/http://..." cleaned.
    expect(dvwa.alerts.find((a) => a.pluginId === 'nuclei.nameserver-fingerprint')!.uris[0].uri).toBe(
      'http://dvwa_dvwa_1',
    );
    expect(dvwa.alerts.find((a) => a.pluginId === 'nuclei.cookies-without-secure')!.uris[0].uri).toBe(
      'http://dvwa_dvwa_1/',
    );
    // A CWE id that is not cwe-<n> is no CWE id.
    const invalid = parseReport(
      formatsFixture(
        'nuclei',
        samples.find((f) => f.includes('invalid-cwe'))!,
      ),
    );
    expect(invalid.alerts[0].cweId).toBe('');
  });

  it('an empty output is a scan without findings only when named: format=nuclei', () => {
    const empty = formatsFixture('nuclei', 'nuclei-jsonl_empty-0-bytes_defectdojo.jsonl');
    expect(() => parseReport(empty)).toThrow(/the report is empty .*format=nuclei/);
    expect(parseReport(empty, 'nuclei')).toMatchObject({ tool: 'nuclei', alerts: [], uriCount: 0 });
  });

  it.each([
    [
      'a bad line',
      '{"template-id":"a","info":{"severity":"low"},"host":"h"}\n{"template-id":',
      /^line 2: malformed JSON Lines/,
    ],
    [
      'an unknown severity',
      '{"template-id":"a","info":{"severity":"severe"},"host":"h"}',
      /^line 1: info.severity "severe"/,
    ],
    [
      'an array item that is not an object',
      '[{"template-id":"a","info":{"severity":"low"},"host":"h"}, 3]',
      /^\[1\]: must be an object/,
    ],
  ])('%s: refused naming where', (_what, text, message) => {
    expect(() => parseReport(text, 'nuclei')).toThrow(message);
  });
});

describe('Burp Suite', () => {
  it.each(samplesOf('burp'))('%s: findings, severities and alerts as counted from the file', (file) => {
    const report = parseReport(formatsFixture('burp', file));
    expect(report).toMatchObject({ tool: 'burp', toolName: 'Burp Suite', format: 'xml' });
    expect(counted(report)).toEqual(burpExpected(file));
  });

  it('base64 and plain requests give the same finding; CWE from the classifications; the location’s parameter', () => {
    const [plain, base64] = ['plain-reqresp', 'base64_turingsecure'].map((part) =>
      parseReport(
        formatsFixture(
          'burp',
          samplesOf('burp').find((f) => f.includes(part))!,
        ),
      ),
    );
    const shape = (r: ImportedReport) =>
      r.alerts.map((a) => [a.pluginId, a.severity, a.cweId, a.uris.map((u) => [u.requestMethod, u.uri, u.param])]);
    expect(shape(plain)).toEqual(shape(base64));
    expect(base64.alerts[0].uris[0].requestHeader).toMatch(/^GET \/ HTTP\/1\.1\r\nHost: dwa\.turingpoint\.de\r\n/);
    expect(plain.alerts[0].uris[0].requestHeader).toMatch(/^GET \/ HTTP\/1\.1\nHost: dwa\.turingpoint\.de\n/);
    const cwe = parseReport(
      formatsFixture(
        'burp',
        samplesOf('burp').find((f) => f.includes('one_finding_with_cwe'))!,
      ),
    );
    expect(cwe.alerts[0]).toMatchObject({ cweId: '524', severity: 'Info', confidence: 'High' });
    expect(cwe.alerts[0].references.some((r) => r.startsWith('https://cwe.mitre.org/'))).toBe(true);
    expect(cwe.alerts[0].description).not.toMatch(/<[a-z]/);
    const blank = parseReport(
      formatsFixture(
        'burp',
        samplesOf('burp').find((f) => f.includes('blank-response'))!,
      ),
    );
    expect(blank.alerts[0].uris[0]).toMatchObject({ param: 'b_id', requestMethod: 'POST', responseHeader: '' });
  });

  const issues = (doctype: string) =>
    `<?xml version="1.0"?>\n${doctype}\n<issues burpVersion="2023.1"><issue><type>1</type><name>A</name><host>http://a.test</host><path>/</path><location>/</location><severity>Low</severity><confidence>Firm</confidence></issue></issues>`;
  it('accepts an internal DTD of element and attribute declarations, expanding nothing', () => {
    const report = parseReport(
      issues('<!DOCTYPE issues [\n<!ELEMENT issues (issue*)>\n<!ATTLIST issues burpVersion CDATA "">\n]>'),
    );
    expect(report).toMatchObject({ tool: 'burp', toolVersion: '2023.1', uriCount: 1 });
  });
  it.each([
    [
      'an entity (XXE)',
      '<!DOCTYPE issues [\n<!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>',
      /^line 3, column 1: an entity declaration/,
    ],
    [
      'billion laughs',
      '<!DOCTYPE issues [\n<!ELEMENT issues ANY>\n<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">\n]>',
      /^line 4, column 1: an entity declaration/,
    ],
    [
      'an external DTD',
      '<!DOCTYPE issues SYSTEM "http://evil.test/x.dtd">',
      /^line 2, column 18: an external identifier/,
    ],
    ['a parameter entity', '<!DOCTYPE issues [\n%x;\n]>', /^line 3, column 1: a parameter entity reference/],
  ])('refuses %s, naming its line and column', (_what, doctype, message) => {
    expect(() => parseReport(issues(doctype))).toThrow(ReportError);
    expect(() => parseReport(issues(doctype))).toThrow(message);
  });

  // Issue 43 item 12: only a declaration at document level is one; the same characters as content are content.
  const dtd = '<!DOCTYPE issues [\n<!ELEMENT issues (issue*)>\n]>';
  it('reads <!DOCTYPE in CDATA, comments, processing instructions and escaped text as content, control characters kept', () => {
    const response = 'HTTP/1.1 200 OK\n\n<!DOCTYPE html>\u0000<!doctype html> &lt;!DOCTYPE html&gt;';
    const report = parseReport(
      issues(dtd)
        .replace('<issues ', '<!-- <!DOCTYPE x [<!ENTITY e "e">]> --><?note <!DOCTYPE x?>\n<issues ')
        .replace(
          '</issue>',
          `<issueDetail>&lt;!DOCTYPE html&gt;</issueDetail><requestresponse><request method="GET" base64="false"><![CDATA[GET / HTTP/1.1\n\n]]></request><response base64="false"><![CDATA[${response}]]></response></requestresponse></issue>`,
        ),
    );
    expect(report).toMatchObject({ tool: 'burp', uriCount: 1 });
    expect(report.alerts[0].uris[0].responseBody).toBe(response.split('\n\n')[1]);
  });
  it.each([
    [
      'a second <!DOCTYPE after the root element',
      issues(dtd).replace('</issues>', '</issues>\n<!DOCTYPE x [<!ENTITY e "e">]>'),
      /^line 6, column 1: a second <!DOCTYPE$/,
    ],
    [
      'a second <!DOCTYPE inside the root element',
      issues(dtd).replace('<issue>', '<!DOCTYPE x [<!ENTITY e "e">]><issue>'),
      /^line 5, column 30: a second <!DOCTYPE$/,
    ],
    [
      'a <!DOCTYPE after the root element’s start',
      issues('').replace('<issue>', '<!DOCTYPE x [<!ENTITY e "e">]><issue>'),
      /^line 3, column 30: a <!DOCTYPE after the root element's start$/,
    ],
    [
      // A comment that a lenient reader closes later than a conforming one: the declaration would be markup to one.
      'a <!DOCTYPE behind a malformed comment',
      issues(dtd).replace('<issue>', '<!-- a ---><!DOCTYPE x [<!ENTITY e "e">]><!-- b --><issue>'),
      /^malformed XML at line 5, column 39: malformed comment\.$/,
    ],
  ])('refuses %s, naming where', (_what, report, message) => {
    expect(() => parseReport(report)).toThrow(ReportError);
    expect(() => parseReport(report)).toThrow(message);
  });
});

describe('SARIF', () => {
  it.each(samplesOf('sarif'))('%s: each run a scan; findings and severities as counted from the file', (file) => {
    const reports = parseReports(formatsFixture('sarif', file));
    const expected = sarifExpected(file);
    const want = expected.map(({ suppressed: _s, ...rest }) => rest);
    expect(reports.map(counted)).toEqual(want.length ? want : [{ findings: 0, bySeverity: {}, alerts: 0 }]);
    for (const report of reports) expect(report.tool).toBe('sarif');
  });

  it('maps long rule ids to stable short ids, keeping the original; levels from the rule; suppressed results skipped', () => {
    const semgrep = parseReport(
      formatsFixture(
        'sarif',
        samplesOf('sarif').find((f) => f.includes('semgrep'))!,
      ),
    );
    expect(semgrep.toolName).toBe('Semgrep OSS');
    for (const alert of semgrep.alerts) {
      expect(alert.pluginId).toMatch(/^semgrep-oss\.[A-Za-z0-9.-]+-[0-9a-f]{8}$/);
      expect(alert.pluginId.length).toBeLessThanOrEqual(60);
      expect(alert.description).toMatch(/^Semgrep OSS rule id: vulnerability-management-registry\./);
    }
    expect(
      parseReport(
        formatsFixture(
          'sarif',
          samplesOf('sarif').find((f) => f.includes('semgrep'))!,
        ),
      ).alerts.map((a) => a.pluginId),
    ).toEqual(semgrep.alerts.map((a) => a.pluginId));
    expect(semgrep.alerts.some((a) => a.cweId !== '')).toBe(true);
    const eslint = parseReport(
      formatsFixture(
        'sarif',
        samplesOf('sarif').find((f) => f.includes('eslint'))!,
      ),
    );
    expect(eslint.uriCount).toBe(0);
    expect(eslint.skipped.filter((s) => /^suppressed by the tool \(inSource\)/.test(s.reason))).toHaveLength(12);
    const dockle = parseReport(
      formatsFixture(
        'sarif',
        samplesOf('sarif').find((f) => f.includes('dockle'))!,
      ),
    );
    expect(dockle.alerts[0].uris[0]).toMatchObject({ uri: 'Dockle: no location', requestMethod: 'NONE' });
  });

  it('a log of several runs is one scan per run: parseReport refuses it naming the CLI', () => {
    const lgtm = formatsFixture(
      'sarif',
      samplesOf('sarif').find((f) => f.includes('2-runs'))!,
    );
    expect(parseReports(lgtm)).toHaveLength(2);
    expect(() => parseReport(lgtm)).toThrow(/runs: the SARIF log has 2 runs, each a scan; .*hawk-scanner import/);
  });

  it.each([
    ['runs not a list', '{"version":"2.1.0","runs":{}}', /^runs: a SARIF log has a list of runs/],
    ['another version', '{"version":"2.0.0","runs":[]}', /^version: "2.0.0", only SARIF 2.1.0 is read/],
    [
      'a bad level',
      '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"T"}},"results":[{"ruleId":"r","level":"fatal","message":{"text":"m"}}]}]}',
      /^runs\[0\]\.results\[0\]\.level: "fatal" is not error/,
    ],
  ])('%s: refused naming where', (_what, text, message) => {
    expect(() => parseReport(text)).toThrow(message);
  });
});
