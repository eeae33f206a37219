import { gzipSync } from 'node:zlib';
import type { Location, Log, ReportingDescriptor, Result, Run } from 'sarif';
import { operationOf, type OperationIndex } from './openapi-operations.ts';

// A scan's findings as a SARIF 2.1.0 log for GitHub code scanning (docs/SARIF-EXPORT.md). Pure: the service's
// operation (GET /api/v1/scan/{scanId}/sarif) and the CLI (`hawk-scanner sarif`) both answer what this builds.

export { describedOperations, operationOf } from './openapi-operations.ts';
export type { DescribedOperation, OperationIndex } from './openapi-operations.ts';

export type ExportSeverity = 'High' | 'Medium' | 'Low' | 'Info';

export interface ExportAlert {
  pluginId: string;
  name: string;
  severity: ExportSeverity;
  description: string;
  /** Digits only, or '' when the finding names no CWE. */
  cweId: string;
  references: string[];
}

export interface ExportFinding {
  findingHash: string;
  pluginId: string;
  requestMethod: string;
  /** Absolute URL of the request. */
  url: string;
  param: string;
  /** The triage status in force (UNKNOWN, FALSE_POSITIVE, RISK_ACCEPTED, PROMOTED, ADD_COMMENT). */
  status: string;
  note: string;
  triagedBy: string;
  /** ms since the epoch; 0 when never triaged. */
  triagedAt: number;
  /** Against the baseline scan, when there is one (docs/SARIF-EXPORT.md, Baseline). */
  baselineState?: Result.baselineState;
}

export interface ExportInput {
  applicationId: string;
  applicationName: string;
  environmentName: string;
  scanId: string;
  scanStatus: string;
  startedAt: number;
  completedAt?: number;
  host: string;
  toolName: string;
  toolVersion: string;
  alerts: ExportAlert[];
  findings: ExportFinding[];
  /** The application's hosted OpenAPI description, where findings are placed when their operation is in it. */
  description?: { uri: string; operations: OperationIndex };
  /** The artifact of findings the description does not place (the scan configuration file). */
  configurationUri: string;
  /** With a baseline: how many of its findings this scan no longer reports (docs/SARIF-EXPORT.md, Baseline). */
  absentResults?: number;
  /**
   * A hosted scan's coverage verdict and main figures (docs/HOSTED-SCANS.md, Coverage), put in the invocation's
   * properties; absent for a scan without a coverage record.
   */
  coverage?: {
    verdict: string;
    reasons: string[];
    pages: number;
    requests: number;
    authenticatedRequests: number;
  };
}

export interface SarifLimits {
  maxResults: number;
  maxGzipBytes: number;
  /** Largest JSON text of a log, when its reader bounds that too (an API response). */
  maxJsonBytes?: number;
}

/** GitHub code scanning's upload limits: 25,000 results per run and 10 MB of gzipped SARIF per file. */
export const SARIF_LIMITS: SarifLimits = { maxResults: 25_000, maxGzipBytes: 10 * 1024 * 1024 };

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

const LEVELS: Record<ExportSeverity, Result.level> = { High: 'error', Medium: 'warning', Low: 'note', Info: 'none' };
/** GitHub's security-severity bands: 7.0-8.9 high, 4.0-6.9 medium, 0.1-3.9 low. */
const SECURITY_SEVERITY: Partial<Record<ExportSeverity, string>> = { High: '8.0', Medium: '5.0', Low: '3.0' };
const SEVERITY_ORDER: ExportSeverity[] = ['High', 'Medium', 'Low', 'Info'];
const SUPPRESSING = new Set(['FALSE_POSITIVE', 'RISK_ACCEPTED']);
const FINGERPRINT = 'hawkFindingHash/v1';

/** The `automationDetails.id` of an environment's logs: `<applicationId>/<environment name>`. */
export const automationId = (applicationId: string, environmentName: string) => `${applicationId}/${environmentName}`;

const isHttpUrl = (text: string) => /^https?:\/\/\S+$/i.test(text);

/**
 * Report text (an alert's name, description and references, imported from any tool's report) shown as written in
 * GitHub's markdown (docs/SARIF-EXPORT.md): a backslash before each ASCII punctuation character that can open a
 * link, an image, emphasis, code, HTML, an entity, a heading, a list, a table or a bare-URL link (CommonMark lets any
 * ASCII punctuation be escaped so), so that no imported text renders as a link or loads an image in the Security tab.
 */
const markdownText = (text: string) => text.replace(/[\\`*_{}[\]()<>#+\-.!|~&:=]/g, '\\$&');

function ruleOf(alert: ExportAlert): ReportingDescriptor {
  const tags = ['security', 'dast'];
  if (alert.cweId) tags.push(`external/cwe/cwe-${alert.cweId}`);
  const references = alert.references.filter((r) => r.trim() !== '');
  const helpText = [alert.description, ...(references.length ? ['References:', ...references] : [])].join('\n');
  // Only our own markup is markdown: the CWE link (cweId is digits only) and each reference that is a whole http(s)
  // URL, as an autolink that shows the address it goes to; everything imported is text (markdownText).
  const helpMarkdown = [
    markdownText(alert.description),
    ...(alert.cweId ? [`CWE: [CWE-${alert.cweId}](https://cwe.mitre.org/data/definitions/${alert.cweId}.html)`] : []),
    ...(references.length
      ? [
          '**References**',
          references.map((r) => (isHttpUrl(r) && !/[<>]/.test(r) ? `- <${r}>` : `- ${markdownText(r)}`)).join('\n'),
        ]
      : []),
  ].join('\n\n');
  const helpUri = references.find(isHttpUrl);
  return {
    id: alert.pluginId,
    name: alert.name,
    shortDescription: { text: alert.name },
    fullDescription: { text: alert.description || alert.name },
    help: { text: helpText || alert.name, markdown: helpMarkdown || markdownText(alert.name) },
    ...(helpUri ? { helpUri } : {}),
    defaultConfiguration: { level: LEVELS[alert.severity] },
    ...(alert.cweId
      ? {
          relationships: [
            {
              target: { id: alert.cweId, toolComponent: { name: 'CWE' } },
              kinds: ['superset'],
            },
          ],
        }
      : {}),
    properties: {
      tags,
      pluginId: alert.pluginId,
      severity: alert.severity,
      ...(SECURITY_SEVERITY[alert.severity] ? { 'security-severity': SECURITY_SEVERITY[alert.severity] } : {}),
      ...(alert.cweId ? { cwe: `CWE-${alert.cweId}` } : {}),
    },
  };
}

function locationOf(input: ExportInput, finding: ExportFinding): Location {
  const request = { name: `${finding.requestMethod} ${finding.url}`, kind: 'resource' };
  const operation = input.description && operationOf(input.description.operations, finding.requestMethod, finding.url);
  if (input.description && operation) {
    const name = `${operation.method.toUpperCase()} ${operation.path}`;
    return {
      physicalLocation: {
        artifactLocation: { uri: input.description.uri },
        region: { startLine: operation.line },
      },
      logicalLocations: [
        { name, fullyQualifiedName: operation.operationId ?? name, kind: 'function' },
        { ...request, fullyQualifiedName: request.name },
      ],
      message: { text: `${name} in the OpenAPI description` },
    };
  }
  return {
    physicalLocation: { artifactLocation: { uri: input.configurationUri }, region: { startLine: 1 } },
    logicalLocations: [{ ...request, fullyQualifiedName: request.name }],
    message: { text: `${finding.requestMethod} ${finding.url}` },
  };
}

function resultOf(input: ExportInput, finding: ExportFinding, alert: ExportAlert, ruleIndex: number): Result {
  const onParameter = finding.param ? ` (parameter ${finding.param})` : '';
  const result: Result = {
    ruleId: alert.pluginId,
    ruleIndex,
    level: LEVELS[alert.severity],
    message: { text: `${alert.name}: ${finding.requestMethod} ${finding.url}${onParameter}` },
    locations: [locationOf(input, finding)],
    // GitHub tracks an alert across uploads by primaryLocationLineHash: the finding hash keeps it stable when the
    // description's lines move, as it keeps triage stable across scans.
    partialFingerprints: { [FINGERPRINT]: finding.findingHash, primaryLocationLineHash: `${finding.findingHash}:1` },
    ...(finding.baselineState ? { baselineState: finding.baselineState } : {}),
    properties: {
      findingHash: finding.findingHash,
      requestMethod: finding.requestMethod,
      url: finding.url,
      ...(finding.param ? { param: finding.param } : {}),
      triageStatus: finding.status,
      severity: alert.severity,
    },
  };
  if (SUPPRESSING.has(finding.status)) {
    result.suppressions = [
      {
        kind: 'external',
        status: 'accepted',
        justification: finding.note || (finding.status === 'FALSE_POSITIVE' ? 'False positive' : 'Risk accepted'),
        properties: {
          triageStatus: finding.status,
          ...(finding.triagedBy ? { triagedBy: finding.triagedBy } : {}),
          ...(finding.triagedAt ? { triagedAt: new Date(finding.triagedAt).toISOString() } : {}),
        },
      },
    ];
  }
  return result;
}

/** The run of one part: the rules its results use, CWE taxonomy, invocation and the part's place in the whole. */
function runOf(input: ExportInput, results: Result[], rules: ReportingDescriptor[], part: PartInfo): Run {
  const cwes = [...new Set(rules.flatMap((r) => (r.properties?.cwe ? [String(r.properties.cwe).slice(4)] : [])))];
  const partNote =
    part.parts > 1
      ? `Part ${part.part} of ${part.parts}: results ${part.first + 1} to ${part.first + results.length} of ${part.total} ` +
        '(GitHub code scanning takes at most 25,000 results and 10 MB gzipped per upload; upload each part under its own automationDetails.id)'
      : undefined;
  return {
    tool: {
      driver: {
        name: input.toolName,
        ...(input.toolVersion ? { version: input.toolVersion } : {}),
        informationUri: 'https://docs.stackhawk.com/',
        rules,
      },
    },
    automationDetails: {
      id:
        part.part === 1
          ? automationId(input.applicationId, input.environmentName)
          : `${automationId(input.applicationId, input.environmentName)}/part-${part.part}`,
      description: { text: `${input.applicationName} / ${input.environmentName}: scan ${input.scanId}` },
    },
    ...(cwes.length
      ? {
          taxonomies: [
            {
              name: 'CWE',
              organization: 'MITRE',
              informationUri: 'https://cwe.mitre.org/',
              shortDescription: { text: 'The MITRE Common Weakness Enumeration' },
              taxa: cwes.map((id) => ({
                id,
                name: `CWE-${id}`,
                helpUri: `https://cwe.mitre.org/data/definitions/${id}.html`,
              })),
            },
          ],
        }
      : {}),
    invocations: [
      {
        executionSuccessful: input.scanStatus !== 'ERROR',
        startTimeUtc: new Date(input.startedAt).toISOString(),
        ...(input.completedAt ? { endTimeUtc: new Date(input.completedAt).toISOString() } : {}),
        ...(partNote ? { toolExecutionNotifications: [{ level: 'note', message: { text: partNote } }] } : {}),
        // The verdict says how much the scan covered, not whether it ran: executionSuccessful stays the scan's own.
        ...(input.coverage ? { properties: { coverage: input.coverage } } : {}),
      },
    ],
    results,
    columnKind: 'utf16CodeUnits',
    properties: {
      applicationId: input.applicationId,
      applicationName: input.applicationName,
      environment: input.environmentName,
      scanId: input.scanId,
      scanStatus: input.scanStatus,
      host: input.host,
      part: part.part,
      parts: part.parts,
      firstResult: part.first,
      totalResults: part.total,
      ...(input.absentResults === undefined ? {} : { absentResults: input.absentResults }),
    },
  };
}

interface PartInfo {
  part: number;
  parts: number;
  /** Index of the part's first result among all results. */
  first: number;
  total: number;
}

/** One log of a part of the results: its own rules (those its results use), indexed from 0. */
function logOf(input: ExportInput, pairs: [ExportFinding, ExportAlert][], part: PartInfo): Log {
  const ruleIndex = new Map<string, number>();
  const rules: ReportingDescriptor[] = [];
  const results = pairs.map(([finding, alert]) => {
    let index = ruleIndex.get(alert.pluginId);
    if (index === undefined) {
      index = rules.push(ruleOf(alert)) - 1;
      ruleIndex.set(alert.pluginId, index);
    }
    return resultOf(input, finding, alert, index);
  });
  return { $schema: SARIF_SCHEMA, version: '2.1.0', runs: [runOf(input, results, rules, part)] };
}

/**
 * The JSON of each log tooLarge measured, with its gzip when that was computed: a caller that sends a log sends what
 * was measured rather than serializing and compressing 10 MB again (serializedLog).
 */
const measured = new WeakMap<Log, { json: string; gzipped?: Buffer }>();

/** The most bytes gzip makes of `bytes` bytes (zlib's deflateBound, with the gzip header and trailer). */
const gzipBound = (bytes: number) => bytes + (bytes >> 12) + (bytes >> 14) + (bytes >> 25) + 7 + 18;

function tooLarge(log: Log, limits: SarifLimits): boolean {
  const json = JSON.stringify(log);
  const bytes = Buffer.byteLength(json);
  if (limits.maxJsonBytes !== undefined && bytes > limits.maxJsonBytes) return true;
  // JSON that gzip cannot make too large is not compressed to find out.
  const gzipped = gzipBound(bytes) <= limits.maxGzipBytes ? undefined : gzipSync(json);
  measured.set(log, { json, ...(gzipped && { gzipped }) });
  return gzipped !== undefined && gzipped.length > limits.maxGzipBytes;
}

/** A log of sarifLogs as JSON, and gzipped (gzipSync's defaults) when its size check compressed it already. */
export function serializedLog(log: Log): { json: string; gzipped?: Buffer } {
  return measured.get(log) ?? { json: JSON.stringify(log) };
}

/**
 * The scan's findings as SARIF logs within GitHub's limits: one log when they fit, else several parts (at most
 * `limits.maxResults` results each, each gzipping to at most `limits.maxGzipBytes`, and within `maxJsonBytes` when
 * given), most severe findings first,
 * each part saying which results it holds. One result per finding (findings of unknown plugins are left out).
 */
export function sarifLogs(input: ExportInput, limits: SarifLimits = SARIF_LIMITS): Log[] {
  const alertOf = new Map(input.alerts.map((a) => [a.pluginId, a]));
  const rank = (a: ExportAlert) => SEVERITY_ORDER.indexOf(a.severity);
  const pairs = input.findings
    .flatMap((f): [ExportFinding, ExportAlert][] => {
      const alert = alertOf.get(f.pluginId);
      return alert ? [[f, alert]] : [];
    })
    .sort(
      ([fa, a], [fb, b]) =>
        rank(a) - rank(b) ||
        compare(a.pluginId, b.pluginId) ||
        compare(fa.url, fb.url) ||
        compare(fa.requestMethod, fb.requestMethod) ||
        compare(fa.findingHash, fb.findingHash),
    );
  // Cut by count, then halve any part that gzips too large (a result is small, so halving ends).
  const slices: [number, number][] = [];
  for (let from = 0; from < pairs.length || from === 0; from += limits.maxResults) {
    slices.push([from, Math.min(pairs.length, from + limits.maxResults)]);
    if (pairs.length === 0) break;
  }
  const fitting: { from: number; to: number; log: Log }[] = [];
  while (slices.length > 0) {
    const [from, to] = slices.shift()!;
    const log = logOf(input, pairs.slice(from, to), { part: 1, parts: 1, first: from, total: pairs.length });
    if (to - from > 1 && tooLarge(log, limits)) {
      const middle = from + Math.ceil((to - from) / 2);
      slices.unshift([from, middle], [middle, to]);
    } else fitting.push({ from, to, log });
  }
  if (fitting.length === 1) return [fitting[0].log];
  return fitting.map(({ from, to }, i) =>
    logOf(input, pairs.slice(from, to), { part: i + 1, parts: fitting.length, first: from, total: pairs.length }),
  );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
