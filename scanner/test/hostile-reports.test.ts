import { describe, expect, it } from 'vitest';
import { MAX_SKIPPED_LISTED, parseZapReport, ReportTooLargeError, ZapReportError } from '../src/zap/index.ts';

// Reports written to hurt the reader: keys that name Object.prototype's members, control characters in labels,
// answers that would grow with the input (skipped lists, XML errors) and limits passed only after the costly work.

const sarif = (level: string, confidence = 'high') =>
  JSON.stringify({
    runs: [
      {
        tool: {
          driver: {
            name: 'ZAP',
            version: '2.16.0',
            rules: [{ id: '10038', name: 'CSP', properties: { confidence } }],
          },
        },
        results: [
          {
            ruleId: '10038',
            level,
            locations: [{ physicalLocation: { artifactLocation: { uri: 'http://a.test/' } } }],
          },
        ],
      },
    ],
  });

const xmlAlert = (pluginId: string, name: string, riskcode = '2', instances = 1) =>
  `<alertitem><pluginid>${pluginId}</pluginid><name>${name}</name><riskcode>${riskcode}</riskcode><instances>${Array.from(
    { length: instances },
    (_, i) => `<instance><uri>http://a.test/${i}</uri><method>GET</method></instance>`,
  ).join('')}</instances></alertitem>`;
const xmlReport = (alerts: string, site = 'http://a.test', version = '2.11.1') =>
  `<?xml version="1.0"?><OWASPZAPReport version="${version}"><site name="${site}"><alerts>${alerts}</alerts></site></OWASPZAPReport>`;

const jsonReport = (name: string, site = 'http://a.test') =>
  JSON.stringify({
    '@version': '2.11.1',
    site: [{ '@name': site, alerts: [{ pluginid: '1', name, riskcode: '1', instances: [{ uri: 'http://a.test/' }] }] }],
  });

const refusal = (input: string, limits = {}) => {
  try {
    parseZapReport(input, limits);
  } catch (error) {
    return error as Error;
  }
  throw new Error('accepted');
};

describe('tables keyed by report text answer only their own keys', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])(
    'a SARIF level or confidence of %s is refused (level) or unknown (confidence), never a crash',
    (key) => {
      const error = refusal(sarif(key));
      expect(error).toBeInstanceOf(ZapReportError);
      expect(error.message).toMatch(new RegExp(`riskcode "${key}" is not 0, 1, 2 or 3`));
      expect(parseZapReport(sarif('error', key)).alerts[0]).toMatchObject({ severity: 'High', confidence: '' });
    },
  );

  it.each(['constructor', 'toString', '__proto__'])('a ZAP riskcode or confidence of %s', (key) => {
    const error = refusal(xmlReport(xmlAlert('10038', 'CSP', key)));
    expect(error).toBeInstanceOf(ZapReportError);
    expect(error.message).toMatch(/is not 0, 1, 2 or 3/);
    const confidence = xmlReport(xmlAlert('10038', 'CSP').replace('<name>', `<confidence>${key}</confidence><name>`));
    expect(parseZapReport(confidence).alerts[0].confidence).toBe('');
  });
});

describe('labels follow the rule for displayable text', () => {
  it.each([
    ['a NUL in an alert name', jsonReport('CSP\u0000x'), /alerts\[0\].*: name must not contain .* \(U\+0000 found\)/],
    ['a bidi override in an alert name', xmlReport(xmlAlert('10038', '\u202egnp.exe')), /name .*\(U\+202E found\)/],
    ['a lone surrogate in an alert name', jsonReport('x\ud800'), /name .*\(U\+D800 found\)/],
    [
      'a control character in the site (the scan host)',
      jsonReport('CSP', 'http://a.test/\u001b[2J'),
      /site\[0\]: site name .*\(U\+001B found\)/,
    ],
    ['a line break in the site', jsonReport('CSP', 'http://a.test/\nx'), /site\[0\]: site name .*\(U\+000A found\)/],
    [
      'a bidi isolate in the version',
      xmlReport(xmlAlert('10038', 'CSP'), 'http://a.test', '2.11\u2066'),
      /the report: version .*\(U\+2066 found\)/,
    ],
  ])('%s: refused, naming where and the character', (_what, input, message) => {
    const error = refusal(input);
    expect(error).toBeInstanceOf(ZapReportError);
    expect(error.message).toMatch(message);
  });
});

describe('bounded work and answers', () => {
  it('stops at the alert limit while mapping 20,000 variants of one plugin id', () => {
    const alerts = Array.from({ length: 20_000 }, (_, i) => xmlAlert('10038', `variant ${i}`)).join('');
    const error = refusal(xmlReport(alerts), { maxAlerts: 1000, maxUris: 10_000 });
    expect(error).toBeInstanceOf(ReportTooLargeError);
    expect(error.message).toMatch(/^more than 1000 alerts \(site\[0\] alertitem\[1000\] .* is alert 1001\)$/);
  });

  it('numbers variants of one plugin id in order of appearance, one map lookup each', () => {
    const alerts = ['a', 'b', 'a', 'c', 'b'].map((name) => xmlAlert('10038', name)).join('');
    const report = parseZapReport(xmlReport(alerts));
    expect(report.alerts.map((a) => [a.pluginId, a.name, a.uris.length])).toEqual([
      ['10038', 'a', 1],
      ['10038_2', 'b', 1],
      ['10038_3', 'c', 1],
    ]);
  });

  it('stops at the findings limit', () => {
    const error = refusal(xmlReport(xmlAlert('10038', 'CSP', '2', 30)), { maxUris: 25 });
    expect(error).toBeInstanceOf(ReportTooLargeError);
    expect(error.message).toMatch(/^more than 25 findings \(alert URIs; .*instance\[25\] is the next\)$/);
  });

  it('lists at most MAX_SKIPPED_LISTED skipped items and counts the rest (40,000 results without a location)', () => {
    const results = Array.from({ length: 40_000 }, () => ({ ruleId: '10038', level: 'warning', locations: [] }));
    const report = parseZapReport(
      JSON.stringify({ runs: [{ tool: { driver: { name: 'ZAP', rules: [{ id: '10038', name: 'CSP' }] } }, results }] }),
    );
    expect(report.skipped).toHaveLength(MAX_SKIPPED_LISTED + 1);
    expect(report.skipped.at(-1)).toEqual({
      where: 'report',
      reason: `${40_000 - MAX_SKIPPED_LISTED} more skipped or shortened items not listed (as those above)`,
    });
    expect(JSON.stringify(report.skipped).length).toBeLessThan(20_000);
  });

  it('says in one short line that elements are left open, whatever the depth', () => {
    const error = refusal(`<OWASPZAPReport>${'<site>'.repeat(200_000)}`);
    expect(error).toBeInstanceOf(ZapReportError);
    expect(error.message).toMatch(
      /^malformed XML at line \d+, column \d+: elements left open at the end of the document$/,
    );
    const long = refusal(`<OWASPZAPReport><${'a'.repeat(100_000)}></b></OWASPZAPReport>`);
    expect(long.message.length).toBeLessThan(400);
  });
});
