import { ZapReportError, traditionalAlert, traditionalInstance, type RawSite } from './report.ts';

// ZAP's traditional JSON report and json-plus (instances with request-header, request-body, ...). Every value is
// a string in these reports (numbers too); older ones leave empty keys out.

type JsonObject = Record<string, unknown>;

const MESSAGE_NAMES = {
  requestHeader: 'request-header',
  requestBody: 'request-body',
  responseHeader: 'response-header',
  responseBody: 'response-body',
};

const isObject = (value: unknown): value is JsonObject => !!value && typeof value === 'object' && !Array.isArray(value);
/** A field as text: strings as they are, numbers and booleans written out, anything else ''. */
const str = (node: JsonObject, key: string) => {
  const value = node[key];
  return typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : '';
};
const trimmed = (node: JsonObject, key: string) => str(node, key).trim();

/** A list that some converters write as a single object when it has one entry. */
function listOf(value: unknown, where: string): JsonObject[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  list.forEach((entry, i) => {
    if (!isObject(entry)) throw new ZapReportError(`${where}[${i}]: must be an object`);
  });
  return list as JsonObject[];
}

export function readJsonReport(report: JsonObject): { sites: RawSite[]; version: string; plus: boolean } {
  let plus = false;
  const sites = listOf(report.site, 'site').map((site, s): RawSite => {
    const siteWhere = `site[${s}]`;
    const alerts = listOf(site.alerts, `${siteWhere}.alerts`).map((alert, a) => {
      const pluginId = trimmed(alert, 'pluginid');
      const where = `${siteWhere}.alerts[${a}]${pluginId ? ` (pluginid ${pluginId.slice(0, 64)})` : ''}`;
      const instances = listOf(alert.instances, `${where}.instances`).map((instance, i) => {
        if ('request-header' in instance || 'response-header' in instance) plus = true;
        return traditionalInstance(`${where}.instances[${i}]`, (name) => str(instance, name), MESSAGE_NAMES);
      });
      return traditionalAlert(where, (name) => str(alert, name), instances);
    });
    return { where: siteWhere, name: trimmed(site, '@name'), alerts };
  });
  return { sites, version: trimmed(report, '@version'), plus };
}
