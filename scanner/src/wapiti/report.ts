// Wapiti's JSON report (`wapiti -f json`, 3.0.x) as the reporting operations take it. Minimal on purpose: the
// agent's engine needs findings with a stable identity; a full Wapiti importer (JSON and XML, for
// POST .../scan/import and `hawk-scanner import`) can take this module over.
//
// Shape (3.0.4): `classifications` {category: {desc, sol, ref: {title: url}}}, `vulnerabilities`, `anomalies` and
// `additionals` {category: [{method, path, info, level, parameter, http_request, curl_command}]}, `infos`
// {target, version, ...}. `level` is 0-4 (Info, Low, Medium, High, Critical). Identical entries repeat.
import type { ReportedAlert, ReportedUri } from '../zap/reported.ts';

type Severity = ReportedAlert['severity'];

interface WapitiEntry {
  method?: string;
  path?: string;
  info?: string;
  level?: number | string;
  parameter?: string;
  http_request?: string;
  curl_command?: string;
}

interface WapitiReport {
  classifications?: Record<string, { desc?: string; sol?: string; ref?: Record<string, string> }>;
  vulnerabilities?: Record<string, WapitiEntry[]>;
  anomalies?: Record<string, WapitiEntry[]>;
  additionals?: Record<string, WapitiEntry[]>;
  infos?: { target?: string; version?: string };
}

export class WapitiReportError extends Error {
  override name = 'WapitiReportError';
}

const SEVERITY_OF_LEVEL: Severity[] = ['Info', 'Low', 'Medium', 'High', 'High'];

/** `Cross Site Scripting` -> `wapiti-cross-site-scripting`: a plugin id per Wapiti category, the same in every scan. */
export const pluginIdOf = (category: string) =>
  `wapiti-${category
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`.slice(0, 64);

const CWE: Record<string, string> = {
  'Cross Site Scripting': '79',
  'SQL Injection': '89',
  'Blind SQL Injection': '89',
  'Command execution': '78',
  'Path Traversal': '22',
  'CRLF Injection': '93',
  'Open Redirect': '601',
  'HttpOnly Flag cookie': '1004',
  'Secure Flag cookie': '614',
  'Content Security Policy Configuration': '693',
  'HTTP Secure Headers': '693',
  'Cross Site Request Forgery': '352',
  'XML External Entity': '611',
  'Internal Server Error': '500',
};

/** The request line's path and query of an entry, without the attack: the finding's URI is its path. */
function pathOf(entry: WapitiEntry): string {
  const path = entry.path || '/';
  return path.startsWith('/') ? path.split('?')[0] : `/${path.split('?')[0]}`;
}

/**
 * The report's findings, one alert per category with at least one entry. A finding's identity (what its hash is
 * built from) is the method, the path and the parameter or, for entries without one (headers, cookies), Wapiti's
 * info line, which names the header or cookie: the same finding gets the same hash in every scan.
 */
export function wapitiAlerts(text: string): { alerts: ReportedAlert[]; target: string; version: string } {
  let report: WapitiReport;
  try {
    report = JSON.parse(text) as WapitiReport;
  } catch (error) {
    throw new WapitiReportError(`not valid JSON: ${(error as Error).message}`);
  }
  if (!report || typeof report !== 'object' || !report.vulnerabilities || !report.classifications)
    throw new WapitiReportError('not a Wapiti JSON report: no vulnerabilities and classifications');
  const alerts = new Map<string, ReportedAlert>();
  const seen = new Set<string>();
  for (const section of [report.vulnerabilities, report.anomalies ?? {}, report.additionals ?? {}]) {
    for (const [category, entries] of Object.entries(section)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) {
        const level = Math.max(0, Math.min(4, Number(entry.level) || 0));
        const uri = pathOf(entry);
        const method = (entry.method || 'GET').toUpperCase();
        const param = (entry.parameter || entry.info || '').slice(0, 4096);
        const identity = JSON.stringify([category, method, uri, param]);
        if (seen.has(identity)) continue;
        seen.add(identity);
        const pluginId = pluginIdOf(category);
        let alert = alerts.get(pluginId);
        if (!alert) {
          const classification = report.classifications?.[category] ?? {};
          alert = {
            pluginId,
            name: category.slice(0, 1024),
            severity: SEVERITY_OF_LEVEL[level],
            description: [classification.desc, classification.sol && `Solution:\n${classification.sol}`]
              .filter(Boolean)
              .join('\n\n')
              .slice(0, 16_384),
            cweId: CWE[category] ?? '',
            references: Object.values(classification.ref ?? {}).slice(0, 20),
            uris: [],
          };
          alerts.set(pluginId, alert);
        }
        // An alert's severity is its worst entry's.
        if (SEVERITY_OF_LEVEL.indexOf(alert.severity) < Math.min(level, 3)) alert.severity = SEVERITY_OF_LEVEL[level];
        const [requestHeader, ...requestBody] = (entry.http_request ?? '').split('\n\n');
        const reported: ReportedUri = {
          uri,
          requestMethod: method,
          param,
          evidence: (entry.info ?? '').slice(0, 16_384),
          otherInfo: (entry.curl_command ?? '').slice(0, 16_384),
          requestHeader: requestHeader.slice(0, 65_536),
          requestBody: requestBody.join('\n\n').slice(0, 100_000),
          responseHeader: '',
          responseBody: '',
        };
        alert.uris.push(reported);
      }
    }
  }
  return {
    alerts: [...alerts.values()],
    target: report.infos?.target ?? '',
    version: report.infos?.version ?? '',
  };
}
