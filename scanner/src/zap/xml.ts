import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ZapReportError, traditionalAlert, traditionalInstance, type RawSite } from './report.ts';

// ZAP's traditional XML report (root OWASPZAPReport; core generator up to 2.10, reports add-on from 2.11) and
// xml-plus (the same with each instance's request and response).

const ROOT = 'OWASPZAPReport';
const MESSAGE_NAMES = {
  requestHeader: 'requestheader',
  requestBody: 'requestbody',
  responseHeader: 'responseheader',
  responseBody: 'responsebody',
};
const ARRAYS = new Set([
  `${ROOT}.site`,
  `${ROOT}.site.alerts.alertitem`,
  `${ROOT}.site.alerts.alertitem.instances.instance`,
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  // Values keep their whitespace (headers end in CRLF); identity fields are trimmed below.
  trimValues: false,
  // The five XML entities and numeric references only: a DOCTYPE (the only source of other entities) is refused
  // before parsing, so no entity expands into more than one character.
  processEntities: true,
  htmlEntities: true,
  isArray: (_name, jPath) => ARRAYS.has(String(jPath)),
  maxNestedTags: 20,
});

type XmlNode = Record<string, unknown>;

/** An element's text ('' when absent or empty; the first when repeated). */
function text(node: XmlNode, name: string): string {
  let value = node[name];
  if (Array.isArray(value)) value = value[0];
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as XmlNode)['#text'] === 'string')
    return (value as XmlNode)['#text'] as string;
  return '';
}
const children = (node: unknown, path: string[]): XmlNode[] => {
  let value: unknown = node;
  for (const name of path) value = value && typeof value === 'object' ? (value as XmlNode)[name] : undefined;
  return Array.isArray(value) ? (value.filter((v) => v && typeof v === 'object') as XmlNode[]) : [];
};

const MAX_PROBLEM_CHARACTERS = 200;

/**
 * fast-xml-parser's validation error as one short line: its own message for unclosed elements lists every open
 * element (megabytes for a deep or long document), and others quote names of any length.
 */
export function malformedXml(err: { msg: string; line: number; col: number }): string {
  const problem = err.msg.startsWith("Invalid '[") ? 'elements left open at the end of the document' : err.msg;
  const short =
    problem.length > MAX_PROBLEM_CHARACTERS ? `${problem.slice(0, MAX_PROBLEM_CHARACTERS)}... (cut)` : problem;
  return `malformed XML at line ${err.line}, column ${err.col}: ${short}`;
}

/** Whether the text is an XML document (after any BOM and leading whitespace). */
export const looksLikeXml = (report: string) => report.trimStart().startsWith('<');

export function readXmlReport(report: string): { sites: RawSite[]; version: string; plus: boolean } {
  if (/<!DOCTYPE/i.test(report)) {
    throw new ZapReportError(
      'XML with a DOCTYPE declaration is refused (entity declarations are not expanded); ZAP reports have none',
    );
  }
  const valid = XMLValidator.validate(report);
  if (valid !== true) throw new ZapReportError(malformedXml(valid.err));
  let document: XmlNode;
  try {
    document = parser.parse(report) as XmlNode;
  } catch (error) {
    throw new ZapReportError(`malformed XML: ${(error as Error).message}`);
  }
  const rootName = Object.keys(document).find((key) => !key.startsWith('?') && !key.startsWith('#'));
  if (rootName !== ROOT) {
    throw new ZapReportError(
      `not a ZAP XML report: the root element is <${String(rootName ?? '').slice(0, 64)}>, expected <${ROOT}>`,
    );
  }
  const root = (typeof document[ROOT] === 'object' ? document[ROOT] : {}) as XmlNode;
  let plus = false;
  const sites = children(root, ['site']).map((site, s): RawSite => {
    const siteWhere = `site[${s}]`;
    const alerts = children(site, ['alerts', 'alertitem']).map((item, a) => {
      const pluginId = text(item, 'pluginid').trim();
      const where = `${siteWhere} alertitem[${a}]${pluginId ? ` (pluginid ${pluginId.slice(0, 64)})` : ''}`;
      const instances = children(item, ['instances', 'instance']).map((instance, i) => {
        if ('requestheader' in instance || 'responseheader' in instance) plus = true;
        return traditionalInstance(`${where} instance[${i}]`, (name) => text(instance, name), MESSAGE_NAMES);
      });
      return traditionalAlert(where, (name) => text(item, name), instances);
    });
    return { where: siteWhere, name: String(site['@name'] ?? '').trim(), alerts };
  });
  return { sites, version: String(root['@version'] ?? '').trim(), plus };
}
