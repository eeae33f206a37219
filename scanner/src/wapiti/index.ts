import {
  mapAlerts,
  ZapReportError as ReportError,
  type RawAlert,
  type RawInstance,
  type ReadLimits,
} from '../zap/report.ts';
import { pluginIdOfName } from '../reports/ids.ts';
import { versionOf, type ImportedReport } from '../reports/report.ts';
import { attribute, children, readXml, text, type XmlNode } from '../reports/xml.ts';

// Wapiti's JSON (`-f json`) and XML (`-f xml`) reports (docs/IMPORTS.md, Wapiti): categories of vulnerabilities,
// anomalies and additionals, each with its description, solution and references and a list of entries (method,
// path, parameter, level, info, the HTTP request). Every entry is a finding: a category is an alert per severity,
// its plugin id `wapiti.<category in lower case, words joined by ->`. Entries carry paths; the host is the
// report's target. CWE ids come from the references' titles ("CWE-79: ...").

/** Wapiti's level (0..4) as ZAP's riskcode: 4 (critical) and 3 are High. */
const LEVELS = new Map([
  ['0', '0'],
  ['1', '1'],
  ['2', '2'],
  ['3', '3'],
  ['4', '3'],
]);
const SECTIONS = [
  ['vulnerabilities', 'vulnerability'],
  ['anomalies', 'anomaly'],
  ['additionals', 'additional'],
] as const;

export interface WapitiEntry {
  method: string;
  path: string;
  parameter: string;
  level: string;
  info: string;
  request: string;
  curl: string;
}

export interface WapitiCategory {
  where: string;
  section: string;
  name: string;
  description: string;
  solution: string;
  references: { title: string; url: string }[];
  entries: (WapitiEntry & { where: string })[];
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => !!value && typeof value === 'object' && !Array.isArray(value);
const own = (node: JsonObject, key: string) => (Object.hasOwn(node, key) ? node[key] : undefined);
const str = (node: JsonObject, key: string) => {
  const value = own(node, key);
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
};

/** Whether a JSON document is a Wapiti report: `vulnerabilities` and `classifications` objects, `infos`. */
export const isWapitiJson = (document: JsonObject) =>
  isObject(own(document, 'vulnerabilities')) &&
  (isObject(own(document, 'classifications')) || isObject(own(document, 'infos')));

function readJson(document: JsonObject): { categories: WapitiCategory[]; target: string; version: string } {
  const classifications = isObject(own(document, 'classifications'))
    ? (own(document, 'classifications') as JsonObject)
    : {};
  const infos = isObject(own(document, 'infos')) ? (own(document, 'infos') as JsonObject) : {};
  const categories: WapitiCategory[] = [];
  for (const [section] of SECTIONS) {
    const entries = own(document, section);
    if (entries === undefined || entries === null) continue;
    if (!isObject(entries)) throw new ReportError(`${section}: must be an object of categories`);
    for (const [name, list] of Object.entries(entries)) {
      const where = `${section}[${JSON.stringify(name.slice(0, 80))}]`;
      if (!Array.isArray(list)) throw new ReportError(`${where}: must be a list of entries`);
      const about = isObject(own(classifications, name)) ? (own(classifications, name) as JsonObject) : {};
      const ref = own(about, 'ref');
      // 3.0: {title: url}; later versions may write a list of {title, url} or of URLs.
      const references = isObject(ref)
        ? Object.entries(ref).map(([title, url]) => ({ title, url: typeof url === 'string' ? url : '' }))
        : Array.isArray(ref)
          ? ref.map((r) =>
              isObject(r) ? { title: str(r, 'title'), url: str(r, 'url') } : { title: '', url: String(r) },
            )
          : [];
      categories.push({
        where,
        section,
        name,
        description: str(about, 'desc'),
        solution: str(about, 'sol'),
        references,
        entries: list.map((entry, i) => {
          if (!isObject(entry)) throw new ReportError(`${where}[${i}]: must be an object`);
          return {
            where: `${where}[${i}]`,
            method: str(entry, 'method'),
            path: str(entry, 'path'),
            parameter: str(entry, 'parameter'),
            level: str(entry, 'level'),
            info: str(entry, 'info'),
            request: str(entry, 'http_request'),
            curl: str(entry, 'curl_command'),
          };
        }),
      });
    }
  }
  return { categories, target: str(infos, 'target'), version: str(infos, 'version') };
}

const XML_ARRAYS = new Set(
  SECTIONS.flatMap(([section, item]) => [
    `report.${section}.${item}`,
    `report.${section}.${item}.entries.entry`,
    `report.${section}.${item}.references.reference`,
  ]).concat(['report.report_infos.info']),
);

/** Whether an XML root is a Wapiti report (`<report type="security">` naming wapiti as its generator). */
const infoOf = (root: XmlNode) =>
  new Map(children(root, ['report_infos', 'info']).map((info) => [attribute(info, 'name'), text(info, '#text')]));

function readXmlReport(report: string): { categories: WapitiCategory[]; target: string; version: string } {
  const { name, root } = readXml(report, { tool: 'Wapiti', arrays: XML_ARRAYS });
  const infos = infoOf(root);
  if (name !== 'report' || attribute(root, 'type') !== 'security' || infos.get('generatorName') !== 'wapiti') {
    throw new ReportError(
      name === 'report' && attribute(root, 'type') === 'scan'
        ? 'not a Wapiti report: <report type="scan"> is Wapiti\'s OpenVAS-style output (-f openvas); export with -f xml or -f json'
        : `not a Wapiti XML report: expected <report type="security"> with report_infos naming the generator wapiti, found <${name.slice(0, 64)}>`,
    );
  }
  const categories: WapitiCategory[] = [];
  for (const [section, item] of SECTIONS) {
    children(root, [section, item]).forEach((category, c) => {
      const name = attribute(category, 'name');
      const where = `${section}/${item}[${c}]${name ? ` (${JSON.stringify(name.slice(0, 80))})` : ''}`;
      categories.push({
        where,
        section,
        name,
        description: text(category, 'description'),
        solution: text(category, 'solution'),
        references: children(category, ['references', 'reference']).map((r) => ({
          title: text(r, 'title'),
          url: text(r, 'url'),
        })),
        entries: children(category, ['entries', 'entry']).map((entry, e) => ({
          where: `${where}/entries/entry[${e}]`,
          method: text(entry, 'method'),
          path: text(entry, 'path'),
          parameter: text(entry, 'parameter'),
          level: text(entry, 'level'),
          info: text(entry, 'info'),
          request: text(entry, 'http_request'),
          curl: text(entry, 'curl_command'),
        })),
      });
    });
  }
  return { categories, target: infos.get('target') ?? '', version: infos.get('generatorVersion') ?? '' };
}

/** Whether an XML document's root is Wapiti's (`report`; the reader then tells its XML from its OpenVAS output). */
export const isWapitiXmlRoot = (rootName: string) => rootName === 'report';

/** The target's origin (`http://host:port`), or '' when the target is not an absolute http(s) URL. */
function originOf(target: string): string {
  try {
    const url = new URL(target.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : '';
  } catch {
    return '';
  }
}

/** An entry's URL: its path on the target's origin (an absolute URL as it is). */
function uriOf(entry: WapitiEntry, origin: string): string {
  const path = entry.path.trim();
  if (/^https?:\/\//i.test(path)) return path;
  if (!origin) return path;
  return origin + (path.startsWith('/') ? path : `/${path}`);
}

/** Wapiti writes the request as one text: its headers, then a blank line and the body. */
function splitRequest(request: string): { header: string; body: string } {
  const match = /\r?\n\r?\n/.exec(request);
  return match
    ? { header: request.slice(0, match.index), body: request.slice(match.index + match[0].length) }
    : { header: request, body: '' };
}

const CWE = /\bCWE-(\d{1,7})\b/i;

/** A cookie's name at the end of the flag modules' info: "HttpOnly flag is not set in the cookie : session". */
const COOKIE = /\bin the cookie\s*:\s*(\S+)\s*$/i;
/** A header the headers modules name first: "X-Frame-Options is not set", "CSP is not set". */
const HEADER = /^([A-Za-z][\w-]*) is not (?:properly )?set\b/;

/**
 * The entry's parameter, or for an entry without one the cookie or header its info names: the finding's identity
 * carries it (docs/IMPORTS.md, Wapiti), so four missing headers of one page are four findings, each shown by name.
 */
function paramOf(entry: WapitiEntry): string {
  const info = entry.info.trim();
  return entry.parameter.trim() || (COOKIE.exec(info)?.[1] ?? HEADER.exec(info)?.[1] ?? '');
}

function toRawAlerts(categories: WapitiCategory[], origin: string): RawAlert[] {
  const alerts: RawAlert[] = [];
  for (const category of categories) {
    const bySeverity = new Map<string, RawInstance[]>();
    for (const entry of category.entries) {
      const riskcode = LEVELS.get(entry.level.trim());
      if (riskcode === undefined)
        throw new ReportError(`${entry.where}: level ${JSON.stringify(entry.level.slice(0, 40))} is not 0 to 4`);
      const { header, body } = splitRequest(entry.request);
      const instances = bySeverity.get(riskcode) ?? [];
      instances.push({
        where: entry.where,
        uri: uriOf(entry, origin),
        method: entry.method.trim(),
        param: paramOf(entry),
        attack: '',
        evidence: '',
        otherInfo: [entry.info.trim(), entry.curl.trim() ? `Reproduce: ${entry.curl.trim()}` : '']
          .filter(Boolean)
          .join('\n\n'),
        requestHeader: header,
        requestBody: body,
        responseHeader: '',
        responseBody: '',
      });
      bySeverity.set(riskcode, instances);
    }
    if (bySeverity.size === 0) continue;
    const name = category.name.trim();
    if (!name) throw new ReportError(`${category.where}: the category has no name`);
    const pluginId = pluginIdOfName('wapiti', name);
    const cwe = category.references.map((r) => CWE.exec(r.title)?.[1]).find(Boolean) ?? '';
    // The most severe entries keep the category's id; less severe ones (rare: a module's levels are fixed) get
    // their own alert with the severity in the id, so each alert has one severity and each id one meaning.
    const ordered = [...bySeverity].sort(([a], [b]) => Number(b) - Number(a));
    ordered.forEach(([riskcode, instances], i) => {
      alerts.push({
        where: category.where,
        pluginId: i === 0 ? pluginId : `${pluginId}.${['info', 'low', 'medium', 'high'][Number(riskcode)]}`,
        alertRef: '',
        name,
        riskcode,
        confidence: '',
        description: category.description.trim(),
        solution: category.solution.trim(),
        otherInfo: '',
        references: category.references.map((r) => r.url.trim()).filter(Boolean),
        cweId: cwe,
        wascId: '',
        count: '',
        instances,
      });
    });
  }
  return alerts;
}

/** Reads a Wapiti report already told apart as JSON (parsed) or XML (text). */
export function readWapitiReport(report: JsonObject | string, limits: ReadLimits = {}): ImportedReport {
  const read = typeof report === 'string' ? readXmlReport(report) : readJson(report);
  const origin = originOf(read.target);
  const host = origin || read.target.trim();
  const alerts = toRawAlerts(read.categories, origin);
  const mapped = mapAlerts([{ where: 'report', name: host, alerts }], limits);
  return {
    tool: 'wapiti',
    toolName: 'Wapiti',
    format: typeof report === 'string' ? 'xml' : 'json',
    toolVersion: versionOf(read.version.replace(/^Wapiti[\s-]*/i, '')),
    ...mapped,
  };
}
