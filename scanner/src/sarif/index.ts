import {
  mapAlerts,
  ZapReportError as ReportError,
  type ReadLimits,
  type RawAlert,
  type RawInstance,
} from '../zap/report.ts';
import { pluginIdOf, slug } from '../reports/ids.ts';
import { firstStr, isObject, own, str, strings, type JsonObject } from '../reports/json.ts';
import { versionOf, type ImportedReport } from '../reports/report.ts';

// A SARIF 2.1.0 log of any tool (docs/IMPORTS.md, SARIF): each `run` is one scan. A rule is an alert with the
// tool's prefix (`<driver name>.<rule id>`, long ids mapped to a stable short id), each result a finding at its
// first location. The level is the result's, else its rule's default (defaultConfiguration.level), else
// `warning`, as the SARIF specification says. Results the tool reports as suppressed (accepted or under review)
// and results of kind pass, notApplicable or informational are not findings: they are listed as skipped.

const RISKCODES = new Map([
  ['error', '3'],
  ['warning', '2'],
  ['note', '1'],
  ['none', '0'],
]);
const NOT_FINDINGS = new Set(['pass', 'notApplicable', 'informational']);

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const textOf = (node: unknown, key: string) => str(own(node, key), 'text') || str(own(node, key), 'markdown');

/** Whether a JSON object is a SARIF log (`runs`, or a `$schema` naming SARIF). */
export const isSarifLog = (document: JsonObject) =>
  Object.hasOwn(document, 'runs') || /sarif/i.test(str(document, '$schema'));

/** The driver name of a SARIF log's first run ('' when none). */
export const sarifDriverName = (document: JsonObject) =>
  str(own(own(list(own(document, 'runs'))[0], 'tool'), 'driver'), 'name');

/** The first CWE id of a rule: its tags (`external/cwe/cwe-79`, `CWE-79: ...`), its properties, its relationships. */
function cweOf(rule: unknown): string {
  const properties = own(rule, 'properties');
  const candidates = [
    ...strings(own(properties, 'tags')),
    ...strings(own(properties, 'cwe')),
    ...list(own(rule, 'relationships')).map((r) => {
      const target = own(r, 'target');
      return /cwe/i.test(str(own(target, 'toolComponent'), 'name')) ? `CWE-${str(target, 'id')}` : '';
    }),
  ];
  for (const candidate of candidates) {
    const match = /\bcwe[-/:_ ]?(\d{1,7})\b/i.exec(candidate);
    if (match) return match[1];
  }
  return '';
}

/** A result's location as a URI (artifact, with its base id) and where in it. */
function locationOf(result: JsonObject, run: JsonObject) {
  const location = list(own(result, 'locations'))[0];
  const physical = own(location, 'physicalLocation');
  const artifact = own(physical, 'artifactLocation');
  const index = own(artifact, 'index');
  const listed = typeof index === 'number' ? own(list(own(run, 'artifacts'))[index], 'location') : undefined;
  const uri = str(artifact, 'uri') || str(listed, 'uri');
  const base = str(artifact, 'uriBaseId') || str(listed, 'uriBaseId');
  const region = own(physical, 'region');
  const line = str(region, 'startLine');
  const column = str(region, 'startColumn');
  const logical = list(own(location, 'logicalLocations'))[0];
  const logicalName = firstStr(logical, 'fullyQualifiedName', 'name');
  return {
    uri: uri && base && !/^[a-z][a-z\d+.-]*:/i.test(uri) ? `${base.replace(/^%|%$/g, '')}/${uri}` : uri,
    line,
    column,
    logicalName,
    snippet: str(own(region, 'snippet'), 'text'),
    message: textOf(location, 'message'),
  };
}

/** A stable identity of a result within its file: the tool's fingerprint when it gives one, else its line. */
function identityOf(result: JsonObject, line: string): string {
  for (const key of ['fingerprints', 'partialFingerprints']) {
    const prints = own(result, key);
    if (isObject(prints)) {
      const first = Object.keys(prints).sort()[0];
      if (first !== undefined && str(prints, first)) return `${first}=${str(prints, first)}`.slice(0, 200);
    }
  }
  return line ? `line ${line}` : '';
}

function readRun(run: unknown, r: number, runCount: number, limits: ReadLimits): ImportedReport {
  const where = `runs[${r}]`;
  if (!isObject(run)) throw new ReportError(`${where}: must be an object`);
  const driver = own(own(run, 'tool'), 'driver');
  const toolName = str(driver, 'name').trim();
  if (!toolName) throw new ReportError(`${where}.tool.driver.name: the run names no tool`);
  const prefix = slug(toolName.toLowerCase()).slice(0, 24) || 'sarif';
  const rules = list(own(driver, 'rules'));
  const rulesById = new Map<string, unknown>();
  for (const rule of rules)
    if (str(rule, 'id') && !rulesById.has(str(rule, 'id'))) rulesById.set(str(rule, 'id'), rule);
  const skipped: { where: string; reason: string }[] = [];
  const alerts = new Map<string, RawAlert>();
  const results = own(run, 'results');
  if (results !== undefined && results !== null && !Array.isArray(results))
    throw new ReportError(`${where}.results: must be a list`);
  list(results).forEach((result, i) => {
    const at = `${where}.results[${i}]`;
    if (!isObject(result)) throw new ReportError(`${at}: must be an object`);
    const kind = str(result, 'kind');
    if (NOT_FINDINGS.has(kind)) {
      skipped.push({ where: at, reason: `a result of kind ${kind} is not a finding` });
      return;
    }
    const suppression = list(own(result, 'suppressions')).find((s) => str(s, 'status') !== 'rejected');
    if (suppression !== undefined) {
      const justification = str(suppression, 'justification').trim();
      skipped.push({
        where: at,
        reason: `suppressed by the tool (${str(suppression, 'kind') || 'suppression'}${justification ? `: ${justification.slice(0, 200)}` : ''})`,
      });
      return;
    }
    const ruleIndex = own(result, 'ruleIndex') ?? own(own(result, 'rule'), 'index');
    const rule =
      (typeof ruleIndex === 'number' ? rules[ruleIndex] : undefined) ??
      rulesById.get(str(result, 'ruleId') || str(own(result, 'rule'), 'id'));
    const ruleId = (str(result, 'ruleId') || str(own(result, 'rule'), 'id') || str(rule, 'id')).trim();
    if (!ruleId) throw new ReportError(`${at}: the result names no rule (ruleId)`);
    const level = str(result, 'level') || str(own(rule, 'defaultConfiguration'), 'level') || 'warning';
    const riskcode = RISKCODES.get(level);
    if (riskcode === undefined)
      throw new ReportError(`${at}.level: ${JSON.stringify(level.slice(0, 40))} is not error, warning, note or none`);
    const { pluginId, mapped } = pluginIdOf(prefix, ruleId);
    const name = (textOf(rule, 'shortDescription') || str(rule, 'name') || ruleId).trim().slice(0, 512);
    const place = locationOf(result, run);
    const message = textOf(result, 'message').trim();
    const instance: RawInstance = {
      where: at,
      uri: place.uri || place.logicalName || `${toolName}: no location`,
      // Not HTTP: what the location is (a file, a logical place, none).
      method: place.uri ? 'FILE' : place.logicalName ? 'LOGICAL' : 'NONE',
      param: identityOf(result, place.line),
      attack: '',
      evidence: place.snippet.trim(),
      otherInfo: [
        message,
        place.uri && place.line ? `At ${place.uri}:${place.line}${place.column ? `:${place.column}` : ''}` : '',
        place.message && place.message !== message ? place.message : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
      requestHeader: '',
      requestBody: '',
      responseHeader: '',
      responseBody: '',
    };
    const key = `${pluginId}\n${name}\n${riskcode}`;
    let alert = alerts.get(key);
    if (!alert) {
      alert = {
        where: at,
        pluginId,
        alertRef: '',
        name,
        riskcode,
        confidence: '',
        description: [
          mapped ? `${toolName} rule id: ${ruleId}` : '',
          (textOf(rule, 'fullDescription') || textOf(rule, 'shortDescription')).trim(),
        ]
          .filter(Boolean)
          .join('\n\n'),
        solution: textOf(rule, 'help').trim(),
        otherInfo: '',
        references: [str(rule, 'helpUri')].filter((u) => /^https?:\/\//i.test(u)),
        cweId: cweOf(rule),
        wascId: '',
        count: '',
        instances: [],
      };
      alerts.set(key, alert);
    }
    alert.instances.push(instance);
  });
  const repository = str(list(own(run, 'versionControlProvenance'))[0], 'repositoryUri');
  const mapped = mapAlerts([{ where, name: repository, alerts: [...alerts.values()] }], limits);
  return {
    tool: 'sarif',
    toolName: toolName.slice(0, 64),
    format: 'sarif',
    toolVersion: versionOf(str(driver, 'semanticVersion') || str(driver, 'version')),
    ...mapped,
    skipped: [
      ...(runCount > 1 ? [{ where, reason: `run ${r + 1} of ${runCount} of the log` }] : []),
      ...skipped,
      ...mapped.skipped,
    ],
  };
}

/** Each run of a SARIF 2.1.0 log as one report (a log without runs: one report without findings). */
export function readSarifRuns(document: JsonObject, limits: ReadLimits = {}): ImportedReport[] {
  const version = str(document, 'version');
  if (version && version !== '2.1.0')
    throw new ReportError(`version: ${JSON.stringify(version.slice(0, 20))}, only SARIF 2.1.0 is read`);
  const runs = own(document, 'runs');
  if (!Array.isArray(runs)) throw new ReportError('runs: a SARIF log has a list of runs');
  if (runs.length === 0)
    return [
      {
        tool: 'sarif',
        toolName: 'SARIF',
        format: 'sarif',
        toolVersion: '',
        host: '',
        sites: [],
        alerts: [],
        uriCount: 0,
        skipped: [{ where: 'runs', reason: 'the log has no run: a scan without findings' }],
      },
    ];
  return runs.map((run, r) => readRun(run, r, runs.length, limits));
}
