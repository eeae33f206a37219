import {
  mapAlerts,
  ZapReportError as ReportError,
  type ReadLimits,
  type RawAlert,
  type RawInstance,
} from '../zap/report.ts';
import { pluginIdOf } from '../reports/ids.ts';
import { firstStr, isObject, jsonError, own, str, strings, type JsonObject } from '../reports/json.ts';
import type { ImportedReport } from '../reports/report.ts';

// Nuclei's results (docs/IMPORTS.md, Nuclei): JSON Lines (`-jsonl`, older `-json`) or one JSON array (`-je`), the
// field names of every version (templateID / template-id, matched / matched-at, matcher_name / matcher-name...).
// A template and matcher is an alert (`nuclei.<template-id>.<matcher-name>`), each result a finding at the place
// it matched. Nuclei writes an empty file when nothing matched: that is a scan without findings when the caller
// named the tool.

const SEVERITIES = new Map([
  ['critical', '3'],
  ['high', '3'],
  ['medium', '2'],
  ['low', '1'],
  ['info', '0'],
  ['unknown', '0'],
]);

/** Whether a JSON value is one Nuclei result (a template id and its info). */
export const isNucleiResult = (value: unknown) =>
  isObject(value) && !!firstStr(value, 'template-id', 'templateID') && own(value, 'info') !== undefined;

/** The results of a Nuclei output: a JSON array, or one JSON object per line. Names the line or index at fault. */
function resultsOf(text: string): { where: string; result: JsonObject }[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    let list: unknown;
    try {
      list = JSON.parse(trimmed);
    } catch (error) {
      throw new ReportError(`malformed JSON: ${jsonError(error, text)}`);
    }
    if (!Array.isArray(list)) throw new ReportError('a Nuclei JSON export is one array of results');
    return list.map((result, i) => {
      if (!isObject(result)) throw new ReportError(`[${i}]: must be an object (a Nuclei result)`);
      return { where: `[${i}]`, result };
    });
  }
  const results: { where: string; result: JsonObject }[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let result: unknown;
    try {
      result = JSON.parse(line);
    } catch (error) {
      const message = jsonError(error, line).replace(/^line 1, /, '');
      throw new ReportError(`line ${i + 1}: malformed JSON Lines (${message})`);
    }
    if (!isObject(result)) throw new ReportError(`line ${i + 1}: must be a JSON object (a Nuclei result)`);
    results.push({ where: `line ${i + 1}`, result });
  });
  return results;
}

/** Nuclei v3 writes `url` as `/http://host/` for some templates: the URL without the slash. */
const cleanUrl = (url: string) => url.replace(/^\/(?=[a-z][a-z\d+.-]*:\/\/)/i, '');

/** Where the result matched: matched-at, matched, url, host, ip (the first present). */
const placeOf = (result: JsonObject) => cleanUrl(firstStr(result, 'matched-at', 'matched', 'url', 'host', 'ip').trim());

/** The origin of an http(s) URL, else ''. */
function originOf(place: string): string {
  try {
    const url = new URL(place);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : '';
  } catch {
    return '';
  }
}

/** A raw message split at its blank line: HTTP headers and body; any other protocol's text as the body. */
function splitMessage(message: string, http: boolean): { header: string; body: string } {
  if (!http) return { header: '', body: message };
  const at = /\r?\n\r?\n/.exec(message);
  return at
    ? { header: message.slice(0, at.index), body: message.slice(at.index + at[0].length) }
    : { header: message, body: '' };
}

const CWE = /^cwe-(\d{1,7})$/i;

export function readNucleiReport(text: string, limits: ReadLimits = {}): ImportedReport {
  const results = resultsOf(text);
  const origins = new Map<string, number>();
  for (const { result } of results) {
    const origin = originOf(placeOf(result)) || originOf(cleanUrl(firstStr(result, 'host', 'url')));
    if (origin) origins.set(origin, (origins.get(origin) ?? 0) + 1);
  }
  // The scan's host: the origin most results matched at; results without a place of their own are filed there.
  const host = [...origins].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
  const alerts = new Map<string, RawAlert>();
  for (const { where, result } of results) {
    const templateId = firstStr(result, 'template-id', 'templateID').trim();
    if (!templateId) throw new ReportError(`${where}: the result has no template-id`);
    const info = own(result, 'info');
    if (!isObject(info)) throw new ReportError(`${where}: info must be an object`);
    const severityName = str(info, 'severity').trim().toLowerCase();
    const riskcode = SEVERITIES.get(severityName);
    if (riskcode === undefined)
      throw new ReportError(
        `${where}: info.severity ${JSON.stringify(severityName.slice(0, 40))} is not critical, high, medium, low, info or unknown`,
      );
    const matcher = firstStr(result, 'matcher-name', 'matcher_name').trim();
    const original = matcher ? `${templateId}.${matcher}` : templateId;
    const { pluginId, mapped } = pluginIdOf('nuclei', original);
    const name = (str(info, 'name').trim() || templateId) + (matcher ? ` (${matcher})` : '');
    const type = str(result, 'type').trim().toLowerCase();
    const http = type === 'http' || type === '';
    const request = str(result, 'request');
    const response = str(result, 'response');
    const req = splitMessage(request, http);
    const res = splitMessage(response, http);
    const method = http
      ? (/^([A-Z]{1,16}) /.exec(request)?.[1] ?? 'GET')
      : type
          .replace(/[^a-z]/g, '')
          .toUpperCase()
          .slice(0, 16) || 'GET';
    const extracted = strings(own(result, 'extracted-results') ?? own(result, 'extracted_results'));
    const interaction = own(result, 'interaction');
    const classification = own(info, 'classification');
    const cwe = strings(own(classification, 'cwe-id'))
      .map((id) => CWE.exec(id.trim())?.[1])
      .find(Boolean);
    const cves = strings(own(classification, 'cve-id')).map((id) => id.toUpperCase());
    const place = placeOf(result) || host;
    if (!place) throw new ReportError(`${where}: the result says nowhere where it matched (matched-at, url, host, ip)`);
    const instance: RawInstance = {
      where,
      uri: place,
      method,
      param: '',
      attack: '',
      evidence: extracted.join(', '),
      otherInfo: [
        firstStr(result, 'curl-command') ? `Reproduce: ${firstStr(result, 'curl-command')}` : '',
        isObject(interaction)
          ? `Out-of-band interaction: ${str(interaction, 'protocol')} from ${str(interaction, 'remote-address')} (${str(interaction, 'full-id') || str(interaction, 'unique-id')})`
          : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
      requestHeader: req.header,
      requestBody: req.body,
      responseHeader: res.header,
      responseBody: res.body,
    };
    const key = `${pluginId}\n${name}\n${riskcode}`;
    let alert = alerts.get(key);
    if (!alert) {
      alert = {
        where,
        pluginId,
        alertRef: '',
        name,
        riskcode,
        confidence: '',
        description: [
          mapped ? `Nuclei template and matcher: ${original}` : '',
          cves.length ? cves.join(', ') : '',
          str(info, 'description').trim(),
          str(info, 'impact').trim() ? `Impact: ${str(info, 'impact').trim()}` : '',
        ]
          .filter(Boolean)
          .join('\n\n'),
        solution: str(info, 'remediation').trim(),
        otherInfo: '',
        references: strings(own(info, 'reference')).filter((r) => /^https?:\/\//i.test(r)),
        cweId: cwe ?? '',
        wascId: '',
        count: '',
        instances: [],
      };
      alerts.set(key, alert);
    }
    alert.instances.push(instance);
  }
  const mappedAlerts = mapAlerts([{ where: 'results', name: host, alerts: [...alerts.values()] }], limits);
  return {
    tool: 'nuclei',
    toolName: 'Nuclei',
    format: text.trim().startsWith('[') ? 'json' : 'jsonl',
    toolVersion: '',
    ...mappedAlerts,
  };
}
