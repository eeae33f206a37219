import {
  mapAlerts,
  ZapReportError as ReportError,
  type ReadLimits,
  type RawAlert,
  type RawSite,
} from '../zap/report.ts';
import { htmlLinks, htmlText } from '../reports/html.ts';
import { pluginIdOf } from '../reports/ids.ts';
import { versionOf, type ImportedReport } from '../reports/report.ts';
import { attribute, children, readXml, text, type XmlNode } from '../reports/xml.ts';

// Burp Suite's XML issue export ("Report selected issues" / "Export issue data" as XML; docs/IMPORTS.md, Burp
// Suite): root <issues burpVersion=...>, starting with an internal DTD that declares elements and attributes only
// (accepted, never expanded; any entity declaration refused). An issue type is an alert (`burp.<type>`), each issue
// a finding at its host and path, with the insertion point of its location (`/basket.jsp [b_id cookie]`) as the
// parameter. Requests and responses come base64-encoded or as text.

const RISKS = new Map([
  ['High', '3'],
  ['Medium', '2'],
  ['Low', '1'],
  ['Information', '0'],
  ['Info', '0'],
]);
/** Burp's confidence as ZAP's confidence codes: Certain, Firm, Tentative -> High, Medium, Low. */
const CONFIDENCES = new Map([
  ['Certain', '3'],
  ['Firm', '2'],
  ['Tentative', '1'],
]);
const ARRAYS = new Set([
  'issues.issue',
  'issues.issue.requestresponse',
  'issues.issue.issueDetailItems.issueDetailItem',
]);

export const isBurpXmlRoot = (rootName: string) => rootName === 'issues';

/** A request or response element's content: base64-decoded when it says so (bytes read as UTF-8). */
function message(node: XmlNode | undefined, where: string): string {
  if (!node) return '';
  const content = text(node, '#text') || (typeof node === 'string' ? node : '');
  if (attribute(node, 'base64') !== 'true') return content;
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact))
    throw new ReportError(`${where}: base64="true" but the content is not base64`);
  return Buffer.from(compact, 'base64').toString('utf8');
}

function split(raw: string): { header: string; body: string } {
  const at = /\r?\n\r?\n/.exec(raw);
  return at ? { header: raw.slice(0, at.index), body: raw.slice(at.index + at[0].length) } : { header: raw, body: '' };
}

/** The element child `name` as an object (text-only elements as `{ '#text': ... }`). */
function element(node: XmlNode, name: string): XmlNode | undefined {
  const value = Object.hasOwn(node, name) ? node[name] : undefined;
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'string') return { '#text': first };
  return first && typeof first === 'object' ? (first as XmlNode) : undefined;
}

const CWE = /\bCWE-(\d{1,7})\b/;

export function readBurpReport(report: string, limits: ReadLimits = {}): ImportedReport {
  const { name, root } = readXml(report, { tool: 'Burp Suite', arrays: ARRAYS, allowDoctype: true });
  if (name !== 'issues')
    throw new ReportError(
      `not a Burp Suite issue export: the root element is <${name.slice(0, 64)}>, expected <issues>${name === 'items' ? " (<items> is Burp's proxy history, not its issues)" : ''}`,
    );
  const sites = new Map<string, RawSite>();
  children(root, ['issue']).forEach((issue, i) => {
    const type = text(issue, 'type').trim();
    const where = `issues/issue[${i}]${type ? ` (type ${type.slice(0, 20)})` : ''}`;
    if (!type) throw new ReportError(`${where}: the issue has no type`);
    const severity = text(issue, 'severity').trim();
    const riskcode = RISKS.get(severity);
    if (riskcode === undefined)
      throw new ReportError(
        `${where}: severity ${JSON.stringify(severity.slice(0, 40))} is not High, Medium, Low or Information`,
      );
    const host = text(issue, 'host').trim();
    const path = text(issue, 'path').trim();
    const location = text(issue, 'location').trim();
    const { pluginId, mapped } = pluginIdOf('burp', type);
    const place = location.replace(/ \[[^\]]*\]$/, '');
    const pairs = children(issue, ['requestresponse']);
    const detail = htmlText(text(issue, 'issueDetail'));
    const items = children(issue, ['issueDetailItems', 'issueDetailItem']).map((item) => htmlText(text(item, '#text')));
    const instance = (pair: XmlNode | undefined, p: number) => {
      const request = element(pair ?? {}, 'request');
      const req = split(message(request, `${where} requestresponse[${p}] request`));
      const res = split(message(element(pair ?? {}, 'response'), `${where} requestresponse[${p}] response`));
      return {
        where: `${where}${pair ? ` requestresponse[${p}]` : ''}`,
        // The location is where the issue is: a path of its own (a backup file found next to the path), or the
        // path with its insertion point in brackets.
        uri: host + (place.startsWith('/') ? place : path),
        method: (request && attribute(request, 'method')) || /^([A-Z]{1,16}) /.exec(req.header)?.[1] || 'GET',
        // The insertion point a location names in brackets: `/basket.jsp [b_id cookie]` -> b_id.
        param: /\[([^\]\s]+)(?: [^\]]*)?\]$/.exec(location)?.[1] ?? '',
        attack: '',
        evidence: items.join('\n'),
        otherInfo: detail,
        requestHeader: req.header,
        requestBody: req.body,
        responseHeader: res.header,
        responseBody: res.body,
      };
    };
    const classifications = text(issue, 'vulnerabilityClassifications');
    const alert: RawAlert = {
      where,
      pluginId,
      alertRef: '',
      name: htmlText(text(issue, 'name')),
      riskcode,
      confidence: CONFIDENCES.get(text(issue, 'confidence').trim()) ?? '',
      description: [mapped ? `Burp Suite issue type: ${type}` : '', htmlText(text(issue, 'issueBackground'))]
        .filter(Boolean)
        .join('\n\n'),
      solution: [htmlText(text(issue, 'remediationBackground')), htmlText(text(issue, 'remediationDetail'))]
        .filter(Boolean)
        .join('\n\n'),
      otherInfo: '',
      references: htmlLinks(text(issue, 'references') + classifications),
      cweId: CWE.exec(classifications)?.[1] ?? '',
      wascId: '',
      count: '',
      // Each request and response pair is one instance; an issue exported without them is one instance at its path.
      instances: pairs.length ? pairs.map((pair, p) => instance(pair, p)) : [instance(undefined, 0)],
    };
    const site = sites.get(host) ?? { where: `host ${host.slice(0, 100)}`, name: host, alerts: [] };
    site.alerts.push(alert);
    sites.set(host, site);
  });
  const mapped = mapAlerts([...sites.values()], limits);
  return {
    tool: 'burp',
    toolName: 'Burp Suite',
    format: 'xml',
    toolVersion: versionOf(attribute(root, 'burpVersion')),
    ...mapped,
  };
}
