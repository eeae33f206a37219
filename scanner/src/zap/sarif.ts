import { ZapReportError, type RawAlert, type RawInstance, type RawSite } from './report.ts';

// ZAP's SARIF 2.1.0 report (sarif-json): one run, rules = ZAP plugins, one result per alert instance with its
// request and response. SARIF has no sites: each URI's origin is one.

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => !!value && typeof value === 'object' && !Array.isArray(value);
const objectAt = (node: unknown, ...path: string[]): JsonObject => {
  let value = node;
  for (const key of path) value = isObject(value) ? value[key] : undefined;
  return isObject(value) ? value : {};
};
const arrayAt = (node: unknown, ...path: string[]): unknown[] => {
  let value = node;
  for (const key of path) value = isObject(value) ? value[key] : undefined;
  return Array.isArray(value) ? value : [];
};
const str = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

/** SARIF levels as ZAP writes them: error = High, warning = Medium, note = Low, none = Informational. */
const RISKCODES = new Map([
  ['error', '3'],
  ['warning', '2'],
  ['note', '1'],
  ['none', '0'],
]);
const CONFIDENCE_CODES = new Map([
  ['false positive', '0'],
  ['low', '1'],
  ['medium', '2'],
  ['high', '3'],
  ['confirmed', '4'],
]);

/** The driver's name when the SARIF log comes from ZAP, for the error naming another tool. */
export const sarifToolName = (report: JsonObject) => str(objectAt(arrayAt(report, 'runs')[0], 'tool', 'driver').name);

function headerBlock(startLine: string, headers: JsonObject): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${str(value)}`);
  return [startLine, ...lines, '', ''].join('\r\n');
}

function bodyText(body: JsonObject): string {
  if (typeof body.text === 'string') return body.text;
  if (typeof body.binary === 'string') return Buffer.from(body.binary, 'base64').toString('utf8');
  return '';
}

const originOf = (uri: string) => {
  try {
    return new URL(uri).origin;
  } catch {
    return '';
  }
};

export function readSarifReport(report: JsonObject): { sites: RawSite[]; version: string } {
  const runs = arrayAt(report, 'runs');
  if (runs.length !== 1) throw new ZapReportError(`runs: a ZAP SARIF report has one run, this one has ${runs.length}`);
  const driver = objectAt(runs[0], 'tool', 'driver');
  const rules = new Map(
    arrayAt(driver, 'rules')
      .filter(isObject)
      .map((rule) => [str(rule.id), rule]),
  );
  const sites = new Map<string, RawSite>();
  arrayAt(runs[0], 'results').forEach((result, r) => {
    const where = `runs[0].results[${r}]`;
    if (!isObject(result)) throw new ZapReportError(`${where}: must be an object`);
    const ruleId = str(result.ruleId).trim();
    if (!ruleId) throw new ZapReportError(`${where}: the result has no ruleId`);
    const rule = rules.get(ruleId) ?? {};
    const level = str(result.level) || str(objectAt(rule, 'defaultConfiguration').level) || 'warning';
    const request = objectAt(result, 'webRequest');
    const response = objectAt(result, 'webResponse');
    const method = str(request.method);
    const version = str(request.version) || '1.1';
    const requestHeader = Object.keys(request).length
      ? headerBlock(`${method} ${str(request.target)} HTTP/${version}`, objectAt(request, 'headers'))
      : '';
    const responseHeader =
      Object.keys(response).length && !response.noResponseReceived
        ? headerBlock(
            `HTTP/${str(response.version) || '1.1'} ${str(response.statusCode)} ${str(response.reasonPhrase)}`.trim(),
            objectAt(response, 'headers'),
          )
        : '';
    const instances = arrayAt(result, 'locations').map((location, l): RawInstance => ({
      where: `${where}.locations[${l}]`,
      uri: str(objectAt(location, 'physicalLocation', 'artifactLocation').uri).trim(),
      method,
      param: str(objectAt(location, 'properties').param).trim(),
      attack: str(objectAt(location, 'properties').attack).trim(),
      evidence: str(objectAt(location, 'physicalLocation', 'region', 'snippet').text).trim(),
      otherInfo: str(objectAt(location, 'properties').otherInfo).trim(),
      requestHeader,
      requestBody: bodyText(objectAt(request, 'body')),
      responseHeader,
      responseBody: responseHeader ? bodyText(objectAt(response, 'body')) : '',
    }));
    const cwe = arrayAt(rule, 'relationships').find(
      (rel) => str(objectAt(rel, 'target', 'toolComponent').name) === 'CWE',
    );
    const alert: RawAlert = {
      where: `${where} (ruleId ${ruleId.slice(0, 64)})`,
      pluginId: ruleId,
      alertRef: '',
      name: str(rule.name).trim() || str(objectAt(rule, 'shortDescription').text).trim(),
      riskcode: RISKCODES.get(level) ?? level,
      confidence: CONFIDENCE_CODES.get(str(objectAt(rule, 'properties').confidence).toLowerCase()) ?? '',
      description: str(objectAt(rule, 'fullDescription').text).trim() || str(objectAt(result, 'message').text).trim(),
      solution: str(objectAt(rule, 'properties', 'solution').text).trim(),
      otherInfo: '',
      references: arrayAt(rule, 'properties', 'references').map(str).filter(Boolean),
      cweId: cwe ? str(objectAt(cwe, 'target').id) : '',
      wascId: '',
      count: String(instances.length),
      instances,
    };
    const siteName = originOf(instances[0]?.uri ?? '');
    const site = sites.get(siteName) ?? { where: `site ${siteName}`, name: siteName, alerts: [] };
    site.alerts.push(alert);
    sites.set(siteName, site);
  });
  // A run without results still scanned something: one site named after nothing, so the import is an empty scan.
  const list = sites.size > 0 ? [...sites.values()] : [{ where: 'runs[0]', name: '', alerts: [] }];
  return { sites: list, version: str(driver.semanticVersion) || str(driver.version) };
}
