import { describe, expect, it } from 'vitest';
import { parseZapReport, ZapReportError } from '../src/zap/index.ts';
import { SAMPLES, expectedAlerts, fixture } from './zap-expected.ts';

// The importer's reading of every real ZAP sample (scanner/test/fixtures/zap, see SOURCES.md there) against a count
// taken from the file itself, and its refusals of bad input.

const summary = (report: ReturnType<typeof parseZapReport>) =>
  report.alerts
    .map((a) => ({
      name: a.name,
      severity: a.severity,
      cweId: a.cweId,
      uriCount: a.uris.length,
      uris: a.uris.map((u) => u.uri).sort(),
      messages: a.uris
        .map((u) =>
          [u.uri, u.requestHeader.split(/\r?\n/)[0].trim(), u.responseHeader.split(/\r?\n/)[0].trim()].join('\n'),
        )
        .sort(),
    }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.severity.localeCompare(b.severity));

describe('parseZapReport on the samples', () => {
  it.each(SAMPLES)('%s: alerts, URIs, severities and CWE ids as counted from the file', (file) => {
    const report = parseZapReport(fixture(file));
    const expected = expectedAlerts(file);
    expect(summary(report)).toEqual(expected);
    expect(report.uriCount).toBe(expected.reduce((n, a) => n + a.uriCount, 0));
  });

  it('recognises each format from the content, not the name', () => {
    const formats = Object.fromEntries(SAMPLES.map((f) => [f, parseZapReport(fixture(f)).format]));
    for (const [file, format] of Object.entries(formats)) expect(file.startsWith(`zap-${format}_`)).toBe(true);
    expect(new Set(Object.values(formats))).toEqual(new Set(['xml', 'xml-plus', 'json', 'json-plus', 'sarif']));
  });

  it('keeps descriptions as plain text, splits references, decodes entities and keeps request/response', () => {
    const xml = parseZapReport(fixture('zap-xml_2.7.0_crlf_defectdojo-zap_sample.xml'));
    const browsing = xml.alerts.find((a) => a.pluginId === '0')!; // pluginid 0 is a real plugin
    expect(browsing.name).toBe('Directory Browsing');
    expect(xml.alerts.every((a) => !/<\/?p>|&lt;|&apos;/.test(a.description + a.solution))).toBe(true);
    const plus = parseZapReport(fixture('zap-xml-plus_2.11.1_req-resp_defectdojo.xml'));
    const uri = plus.alerts[0].uris[0];
    expect(uri.requestHeader).toMatch(
      /^PUT http:\/\/localhost:8080\/bodgeit\/js\/qndto7n63d HTTP\/1\.1\r?\nHost: localhost:8080/,
    );
    expect(uri.responseHeader).toMatch(/^HTTP\/1\.1 403/);
    expect(plus.alerts[0].confidence).toBe('Medium');
    const json = parseZapReport(fixture('zap-json_2.11.1_itsecgames_bcgov.json'));
    const csp = json.alerts.find((a) => a.pluginId === '10038')!;
    expect(csp.references.length).toBeGreaterThan(1);
    expect(csp.references.every((r) => r.startsWith('http'))).toBe(true);
    const jsonPlus = parseZapReport(fixture('zap-json-plus_devbuild_SYNTHETIC_zap-extensions-unittest.json'));
    expect(jsonPlus.alerts[0]).toMatchObject({
      solution: 'Test Solution',
      cweId: '123',
      wascId: '456',
      otherInfo: "Test 'Other\\\n\nSecond line",
    });
    expect(jsonPlus.alerts[0].uris[0]).toMatchObject({
      attack: 'Test "Attack\\"',
      requestBody: 'Test Request Body',
      responseBody: 'Test Response Body',
    });
    const sarif = parseZapReport(fixture('zap-sarif_2.16.0_bodgeit_smithy.sarif.json'));
    const post = sarif.alerts.flatMap((a) => a.uris).find((u) => u.requestMethod === 'POST')!;
    expect(post.requestBody).toContain('comments=%3C%2Ftd%3E'); // base64 body decoded
    expect(sarif.host).toBe('http://bodgeit.com:8080');
  });

  it('keeps same-plugin alerts with another name apart, merges an alert repeated across sites, skips zero-instance alerts', () => {
    const report = parseZapReport(fixture('zap-xml_2.11.1_bodgeit_multisite_zero-instance_securecodebox.xml'));
    expect(report.sites).toHaveLength(5);
    expect(report.host).toBe('http://bodgeit.securecodebox-demo.svc:8080');
    expect(report.alerts.filter((a) => a.pluginId.startsWith('100000')).map((a) => a.pluginId)).toEqual([
      '100000',
      '100000_2',
    ]);
    expect(report.alerts.filter((a) => a.pluginId === '100001')).toHaveLength(1);
    expect(report.skipped).toContainEqual({
      where: 'site[4] alertitem[8] (pluginid 10106)',
      reason: 'alert 10106 "HTTP Only Site" has no instances',
    });
  });

  it('notes what a legacy report left out (count above the instances listed) and duplicate instances', () => {
    const report = parseZapReport(fixture('zap-xml_weekly-D-2021-03-29_dvwa_defectdojo.xml'));
    expect(report.zapVersion).toBe('D-2021-03-29');
    expect(report.skipped.map((s) => s.reason)).toEqual([
      'ZAP counted 67 instances of alert 10096 but the report lists 20',
      '7 duplicate instances of alert 10031 counted once',
    ]);
  });

  it('reads an empty report as a scan without alerts', () => {
    const report = parseZapReport(fixture('zap-xml_2.9.0_empty_defectdojo.xml'));
    expect(report).toMatchObject({ host: 'https://isaac.nl', alerts: [], uriCount: 0 });
  });
});

const site = (alerts: string) =>
  `<?xml version="1.0"?><OWASPZAPReport version="2.11.1"><site name="http://a.test">${alerts}</site></OWASPZAPReport>`;
const item = (
  fields: string,
  instances = '<instances><instance><uri>http://a.test/</uri><method>GET</method></instance></instances>',
) =>
  `<alerts><alertitem><pluginid>10038</pluginid><name>CSP</name><riskcode>2</riskcode>${fields}${instances}</alertitem></alerts>`;

describe('parseZapReport on bad input', () => {
  const refused = (input: string | Buffer) => {
    try {
      parseZapReport(input);
    } catch (error) {
      expect(error).toBeInstanceOf(ZapReportError);
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  it.each([
    [
      'malformed XML (the sample)',
      fixture('zap-xml_malformed_defectdojo.xml'),
      /^malformed XML at line 1, column 1: Unclosed tag 'root'/,
    ],
    ['malformed XML deeper in', site(item('<cweid>16</wascid>')), /^malformed XML at line 1, column \d+: .*cweid/],
    ['malformed JSON', '{"site": [', /^neither XML nor valid JSON: /],
    [
      'another tool’s XML',
      '<?xml version="1.0"?><testsuites><testsuite/></testsuites>',
      /root element is <testsuites>, expected <OWASPZAPReport>/,
    ],
    ['another tool’s JSON', '{"Report":{"Sites":{}}}', /not a ZAP report: .*"Report"/],
    [
      'another tool’s SARIF',
      JSON.stringify({ runs: [{ tool: { driver: { name: 'Semgrep' } }, results: [] }] }),
      /SARIF log from "Semgrep"/,
    ],
    ['an empty body', '  \n', /the report is empty/],
    ['zero sites', '<OWASPZAPReport version="2.11.1"></OWASPZAPReport>', /the report has no site/],
    ['zero sites (JSON)', '{"@version":"2.11.1","site":[]}', /the report has no site/],
    [
      'an alert counting instances it does not list',
      site(item('<count>3</count>', '<instances></instances>')),
      /site\[0\] alertitem\[0\] \(pluginid 10038\): alert 10038 "CSP" counts 3 instances but lists none/,
    ],
    [
      'a gigantic attribute',
      `<OWASPZAPReport><site name="${'x'.repeat(100_000)}"></site></OWASPZAPReport>`,
      /site\[0\]: site name is 100000 characters long \(at most 2048\)/,
    ],
    [
      'a gigantic uri',
      site(item('', `<instances><instance><uri>http://a.test/${'a'.repeat(9000)}</uri></instance></instances>`)),
      /instance\[0\]: uri is 9014 characters long/,
    ],
    [
      'an unknown riskcode',
      site(item('').replace('<riskcode>2</riskcode>', '<riskcode>7</riskcode>')),
      /riskcode "7" is not 0, 1, 2 or 3/,
    ],
    ['a plugin id that is no id', site(item('').replace('10038', '../../x')), /plugin id "\.\.\/\.\.\/x" must be/],
  ])('%s: refused, naming what and where', (_what, input, message) => {
    expect(refused(input)).toMatch(message);
  });

  it.each([
    ['after the root element', site(item('')).replace('</OWASPZAPReport>', '<!DOCTYPE r [<!ENTITY e "e">]>')],
    ['inside the root element', site(item('')).replace('<site ', '<!DOCTYPE r [<!ENTITY e "e">]><site ')],
  ])('refuses a DOCTYPE %s', (_where, report) => {
    expect(refused(report)).toMatch(/^line 1, column \d+: XML with a DOCTYPE declaration is refused/);
  });

  it('refuses a lone surrogate, which would hide a DOCTYPE from the tokenizer', () => {
    const hidden = '<![CDATA[\uD800]]><!DOCTYPE r [<!ENTITY e "e">]><![CDATA[]]>&e;';
    expect(refused(site(item(`<desc>${hidden}</desc>`)))).toMatch(/^line 1, column \d+: a lone surrogate/);
  });

  it('reads <!doctype html> in a CDATA section or a comment as content (issue 43 item 12)', () => {
    const body = '<responsebody><![CDATA[<!doctype html><html></html>]]></responsebody>';
    const report = parseZapReport(
      site(item('', `<instances><instance><uri>http://a.test/</uri>${body}</instance></instances>`)).replace(
        '<site ',
        '<!-- <!DOCTYPE r [<!ENTITY e "e">]> --><site ',
      ),
    );
    expect(report.alerts[0].uris[0].responseBody).toBe('<!doctype html><html></html>');
  });

  it('refuses a billion-laughs document without expanding it', () => {
    const lol = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('')}]>`;
    const started = process.hrtime.bigint();
    expect(refused(`${lol}<OWASPZAPReport><site name="&lol9;"></site></OWASPZAPReport>`)).toMatch(
      /DOCTYPE declaration is refused/,
    );
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
  });

  it('cuts oversized messages to fit and says so', () => {
    const body = 'b'.repeat(400_000);
    const report = parseZapReport(
      site(
        item(
          '',
          `<instances><instance><uri>http://a.test/</uri><method>GET</method><requestheader>GET / HTTP/1.1</requestheader><responsebody>${body}</responsebody></instance></instances>`,
        ),
      ),
    );
    const uri = report.alerts[0].uris[0];
    expect(
      Buffer.byteLength(uri.requestHeader + uri.requestBody + uri.responseHeader + uri.responseBody),
    ).toBeLessThanOrEqual(300_000);
    expect(report.skipped.map((s) => s.reason)).toEqual([
      expect.stringMatching(/^response body cut from 400000 to \d+ bytes$/),
    ]);
  });
});
