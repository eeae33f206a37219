import { XMLParser } from 'fast-xml-parser';
import { wellFormedXml } from '../reports/xml.ts';
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
  // The five XML entities, HTML's and numeric references only: a DOCTYPE (the only source of other entities) is
  // refused before parsing (wellFormedXml), so no entity expands into more than one character.
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

/** Whether the text is an XML document (after any BOM and leading whitespace). */
export const looksLikeXml = (report: string) => report.trimStart().startsWith('<');

export function readXmlReport(report: string): { sites: RawSite[]; version: string; plus: boolean } {
  const body = wellFormedXml(report, 'ZAP');
  let document: XmlNode;
  try {
    document = parser.parse(body) as XmlNode;
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
