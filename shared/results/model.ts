import { NO_OPEN_ISSUES, type OpenIssueCounts, type ScanType, type EnvironmentStreams } from '../applications/model.ts';
import type { Severity } from '../input/severities.ts';
import { createHash } from 'node:crypto';
import { UUID } from '../input/uuid.ts';

// The records of what scans found (docs/DATA-MODEL.md, Scans and Findings): scans, their alerts and URIs, findings
// and their triage rules, as stored. Their reads and writes are in scan-repository.ts and finding-repository.ts.

export type ScanStatus = 'STARTED' | 'COMPLETED' | 'ERROR';

/** Aggregates of a scan's alerts: computed from the alert items, frozen on the scan when it ends. */
export interface ScanStats extends Partial<TriageStats> {
  /** Alert URIs (findings). */
  totalAlerts: number;
  /** Alerts (distinct plugins). */
  uniqueAlerts: number;
  urisBySeverity: Record<Severity, number>;
  alertsBySeverity: Record<Severity, number>;
  // byStatus, byPluginStatus (TriageStats): set when the scan ends, kept current by triage while it is its
  // environment's last scan; absent while it runs (every finding then counts as UNKNOWN).
}

export interface ScanRecord {
  scanId: string;
  organizationId: string;
  applicationId: string;
  environmentId: string;
  /** The environment's name when the scan started. */
  envName: string;
  status: ScanStatus;
  /** The user who reported the scan. */
  userId: string;
  /** Milliseconds since the epoch. */
  startedAt: number;
  completedAt?: number;
  durationSeconds?: number;
  urlCount: number;
  hawkscanVersion: string;
  host: string;
  tags: { name: string; value: string }[];
  configHash: string;
  /** What its configuration scans (environment list's latestScanType); absent on scans recorded before it existed. */
  scanType?: ScanType;
  /** Its tool stream in its environment (streams.ts); absent on scans stored before streams: from its labels. */
  stream?: string;
  /** URIs counted so far (ADDed by each alerts request with its alert's uriCount): completion checks against it. */
  reportedUris: number;
  /** The ids of the findings reports counted that carried one (reportScanAlerts' `reportId`). */
  reportIds?: Set<string>;
  stats?: ScanStats;
  deleting?: boolean;
  /**
   * How many failed completions have started putting the environment's finding records back
   * (scanFindingsRestoreStart); a completion commits only if none started since it read the scan.
   */
  findingsRestores?: number;
}

export interface AlertRecord {
  pluginId: string;
  name: string;
  severity: Severity;
  description: string;
  cweId: string;
  references: string[];
  /** URIs counted (visible); atomic ADD with the scan's reportedUris. */
  uriCount: number;
  /** URI numbers handed out so far (>= uriCount; a request that failed or lost to completion leaves a gap). */
  nextUri: number;
  /**
   * The counted URI numbers as `[first, count]` ranges, one per report, appended in the transaction that counts
   * them: URIs outside them (written by a request that has not, or never, counted them) are invisible. Absent on
   * alerts stored before ranges existed: then every number below nextUri counts.
   */
  committed?: [number, number][];
}

/** A URI of a scan that one of its alerts counts. */
export interface CountedUri {
  alert: AlertRecord;
  findingHash: string;
  uri: string;
  requestMethod: string;
  param: string;
}

export interface AlertUriRecord {
  /** The URI's number within its alert (its sort key); counted only within the alert's committed ranges. */
  n: number;
  alertUriId: string;
  msgId: string;
  pluginId: string;
  uri: string;
  requestMethod: string;
  /** The parameter (also on the message): part of the finding's identity, read with the URIs when the scan ends. */
  param: string;
  findingHash: string;
}

export interface AlertMessageRecord extends Omit<AlertUriRecord, 'n'> {
  /** Its URI's number (absent on messages stored before ranges existed). */
  n?: number;
  evidence: string;
  otherInfo: string;
  requestHeader: string;
  requestBody: string;
  responseHeader: string;
  responseBody: string;
}

export interface ScanLocation {
  scanId: string;
  applicationId: string;
  environmentId: string;
}

/** One finding of an environment (by hash), as its scans saw it. Written when a scan that reported it ends. */
export interface FindingRecord {
  findingHash: string;
  pluginId: string;
  requestMethod: string;
  /** The normalized path (normalizedPath). */
  path: string;
  param: string;
  /** One literal URI of the finding, from the last scan that saw it. */
  uri: string;
  severity: Severity;
  /**
   * The issue it is a detection of (issueId; docs/ISSUES.md): the findings of every tool with the
   * same weakness at the same place. Absent on records written before issues until the upgrade assigns it.
   */
  issueId?: string;
  /** Its alert's CWE id ('' when none), part of the issue's identity. */
  cweId?: string;
  /** ms: start of the first and of the last scan that reported it. */
  firstSeen: number;
  lastSeen: number;
  lastScanId: string;
  /** The tool stream of lastScanId (streams.ts): only a later scan of it fixes the finding. Absent before streams. */
  stream?: string;
  /** Its URIs in lastScanId (literal URIs that differ only in id-like segments are one finding). */
  lastScanUris: number;
  /**
   * ms: the start of the scan that made it current: its first sighting, or the scan that reported it again after a
   * fix (absent in records written before it was kept: the first sighting). Starts an overdue episode
   * (docs/GOVERNANCE.md, Overdue findings).
   */
  currentSince?: number;
  /**
   * ms: when a later completed scan of its stream found it gone (docs/GOVERNANCE.md, Trends; docs/DATA-MODEL.md, Tool
   * streams); absent while it is current. A later scan that reports it again clears it.
   */
  fixedAt?: number;
  /**
   * ms: when a retest found it gone (docs/HOSTED-SCANS.md, Retests): fixed and verified. A later scan that reports it
   * again writes the record anew, without it.
   */
  verifiedFixedAt?: number;
  /**
   * Who is to act on it (docs/API.md, Assignees; ours): a member of the organization, set by assignFindings; kept
   * while later scans detect it again (findings/scan-findings.ts).
   */
  assigneeId?: string;
  /** ms: when assigneeId was last set. */
  assignedAt?: number;
  /** The last retest's outcome: its id, STILL_PRESENT or FIXED, when, and what the engine saw (STILL_PRESENT). */
  lastRetest?: { retestId: string; status: 'STILL_PRESENT' | 'FIXED'; at: number; evidence: string };
  /** The completion (or import) request that wrote it (FindingsBefore.attempt): restoreFindings reverts only its own. */
  recordedBy?: string;
  /**
   * The record as it was before that request wrote it (null: there was none). While the request's pending write
   * exists (its scan not yet published), readers take this instead (resolvedFinding); a sweep puts it back.
   */
  previous?: FindingRecord | null;
}

/** A detection of an issue: one finding (by hash) of one tool stream that belongs to it (docs/ISSUES.md). */
export interface IssueDetection {
  issueId: string;
  findingHash: string;
  /** The finding's tool stream when it was recorded (streams.ts). */
  stream: string;
}

/**
 * A request that writes finding records before the transaction publishing its scan: registered before its first
 * write, deleted by that transaction (or once its records are put back). One left behind (a crash, a timeout that
 * stopped the function) hides those records from every reader, and a sweep after `expiresAt` puts them back, and
 * for an import removes the scan's unpublished items too.
 */
export interface PendingFindings {
  attempt: string;
  environmentId: string;
  scanId: string;
  /** `import`: nothing of the scan is published until the transaction; `completion`: the scan exists, STARTED. */
  kind: 'import' | 'completion';
  /** ms after which no request can still be running it (a sweep may then take over). */
  expiresAt: number;
  /** Set by the sweep that took it over: the publishing transaction then fails. */
  sweeping?: boolean;
}

export interface RuleHistoryEntry {
  operation: 'CREATE' | 'UPDATE';
  oldResult: TriageStatus;
  newResult: TriageStatus;
  note: string;
  userId: string;
  timestamp: number;
  /** ms: when an acceptance made by this change expires (RISK_ACCEPTED only; docs/GOVERNANCE.md). */
  expiresAt?: number;
  /** The change was the expiry of a risk acceptance, not a person's triage. */
  expired?: true;
}

/** The triage of a finding: applies to it in its environment's last scan and every later scan. */
export interface TriageRule {
  findingHash: string;
  status: TriageStatus;
  note: string;
  userId: string;
  /** ms of the last change. */
  updatedAt: number;
  /** Every change conditions on the version it read. */
  version: number;
  /** ms: while RISK_ACCEPTED, when the acceptance expires and the finding becomes untriaged again (docs/GOVERNANCE.md). */
  expiresAt?: number;
  /** Oldest first; at most MAX_RULE_HISTORY entries (the oldest are dropped). */
  history: RuleHistoryEntry[];
}

/**
 * The environment's records of these findings as they are before a scan records its own (recordFindings runs before
 * the scan's completion commits): what restoreFindings puts back if that commit does not happen.
 */
export interface FindingsBefore {
  scanId: string;
  /** This request's mark on the records it writes (recordedBy), so that its restore leaves other requests' records. */
  attempt: string;
  /** Records that existed, as they were. */
  previous: FindingRecord[];
  /** Hashes that had no record. */
  added: string[];
}

// Triage statuses of findings (the public enum of ApplicationAlertUri.status and AlertRule.result).

export const TRIAGE_STATUSES = ['UNKNOWN', 'FALSE_POSITIVE', 'RISK_ACCEPTED', 'PROMOTED', 'ADD_COMMENT'] as const;

export type TriageStatus = (typeof TRIAGE_STATUSES)[number];

/** A comment leaves a finding untriaged: the untriaged figures count UNKNOWN and ADD_COMMENT findings. */
export const isUntriaged = (status: TriageStatus) => status === 'UNKNOWN' || status === 'ADD_COMMENT';

/** The findings report's status (reports.CurrentFindingRow.status): NEW, FALSE_POSITIVE, RISK_ACCEPTED, ASSIGNED. */
export function reportStatus(status: TriageStatus): 'NEW' | 'FALSE_POSITIVE' | 'RISK_ACCEPTED' | 'ASSIGNED' {
  if (status === 'FALSE_POSITIVE' || status === 'RISK_ACCEPTED') return status;
  return status === 'PROMOTED' ? 'ASSIGNED' : 'NEW';
}

export type CountsBySeverity = Record<Severity, number>;

export type StatusCounts = Record<TriageStatus, number>;

/** Findings by triage status and severity, and by plugin and triage status (ScanStats, frozen with them). */
export interface TriageStats {
  byStatus: Record<TriageStatus, Record<Severity, number>>;
  byPluginStatus: Record<string, StatusCounts>;
}

// A finding's identity (docs/DATA-MODEL.md, Findings): one (plugin, method, normalized path, parameter) in one
// environment of one application. Its `findingHash` is the same in every scan of that environment, so a later scan
// recognizes an earlier scan's finding and its triage rule applies to it. Every writer of alert URIs (the scanner's
// reports, imports) computes the hash here and nowhere else.

export interface FindingIdentity {
  applicationId: string;
  environmentId: string;
  pluginId: string;
  /** HTTP method, any case. */
  method: string;
  /** The literal URI as reported: an absolute URL or a path, with or without a query string. */
  uri: string;
  /** The parameter the finding is about ('' when none). */
  param: string;
}

/** A segment standing for an identifier in a parameterized path (the public API's `{userId}` style). */
export const ID_SEGMENT = '{id}';

const NUMBER = /^-?\d+(\.\d+)?$/;

/** Hex digests and database ids (MongoDB ObjectIds are 24 hex digits): 16+ hex digits with at least one digit. */
const HEX_ID = /^(?=[a-f]*\d)[0-9a-f]{16,}$/i;

/** Opaque tokens (ULIDs, base64url keys): 20+ letters, digits, - or _, with both letters and digits. */
const TOKEN = /^(?=[^a-z]*[a-z])(?=\D*\d)[\w-]{20,}$/i;

/** A template parameter, as in a parameterized path (`/users/{userId}`). */
const TEMPLATE = /^\{[^/{}]*\}$/;

const isIdLike = (segment: string) =>
  UUID.test(segment) || NUMBER.test(segment) || HEX_ID.test(segment) || TOKEN.test(segment) || TEMPLATE.test(segment);

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a malformed escape stays as it came
  }
}

/**
 * The path that identifies a finding: the URI's path alone (scheme, host, port, query string and fragment dropped:
 * the host is the environment's, query values are data and the vulnerable parameter is `param`), percent-escapes
 * decoded, empty segments and a trailing slash dropped, and every id-like segment (a number, a UUID, 16+ hex digits
 * with a digit, a 20+ character token mixing letters and digits, a `{name}` template parameter) replaced by `{id}`. So `/users/42/orders/7?x=1`,
 * `https://shop.test/users/43/orders/8/` and `/users/9b2f...-uuid/orders/1` are all `/users/{id}/orders/{id}`.
 * Case is kept (paths are case-sensitive).
 */
export function normalizedPath(uri: string): string {
  return `/${uriSegments(uri)
    .map((segment) => (isIdLike(segment) ? ID_SEGMENT : segment))
    .join('/')}`;
}

/**
 * SHA-256 (hex) of the finding's identity: application and environment ids, plugin id, upper-cased method,
 * normalized path and parameter, JSON-encoded so that no field can run into the next.
 */
export function findingHash(finding: FindingIdentity): string {
  const identity = [
    finding.applicationId,
    finding.environmentId,
    finding.pluginId,
    finding.method.toUpperCase(),
    normalizedPath(finding.uri),
    finding.param,
  ];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

// An issue (docs/ISSUES.md): the findings of every tool that describe the same weakness at the same place in one
// environment. Its `issueId` is computed here and nowhere else, like the finding hash above.

export interface IssueIdentity {
  applicationId: string;
  environmentId: string;
  /** The weakness's CWE id as reported ('', '0' or '-1': none). */
  cweId: string;
  /** The tool's rule id: the weakness's category when no CWE is given. */
  pluginId: string;
  method: string;
  uri: string;
  param: string;
}

/** A CWE id worth grouping by: digits, not 0 (ZAP's "none") nor negative. */
const CWE_ID = /^(?:cwe-)?([1-9]\d{0,6})$/i;

/**
 * The CWE of Wapiti's categories whose reports carry none (Wapiti 3.0's report references name no CWE for them; its
 * later versions' definitions give these): a category is the same weakness as the other tools' findings of that CWE.
 */
const WAPITI_CATEGORY_CWES: Record<string, string> = {
  'backup-file': '530',
  'blind-sql-injection': '89',
  'command-execution': '78',
  'content-security-policy-configuration': '693',
  'crlf-injection': '93',
  'cross-site-request-forgery': '352',
  'cross-site-scripting': '79',
  'http-secure-headers': '693',
  'httponly-flag-cookie': '1004',
  'open-redirect': '601',
  'path-traversal': '22',
  'secure-flag-cookie': '614',
  'server-side-request-forgery': '918',
  'sql-injection': '89',
  'xml-external-entity': '611',
};

/** A Wapiti rule id's category: `wapiti.<category>` and its per-severity forms `wapiti.<category>.<severity>`. */
const WAPITI_RULE = /^wapiti\.([a-z0-9-]+?)(?:\.(?:info|low|medium|high))?$/;

/**
 * What kind of weakness the finding is: `cwe:<n>` (the alert's CWE, or its category's where the tool names one,
 * WAPITI_CATEGORY_CWES), or `category:<rule id>` when no CWE is known.
 */
export function weaknessOf(cweId: string, pluginId: string): string {
  const category = WAPITI_RULE.exec(pluginId)?.[1];
  const cwe =
    CWE_ID.exec(cweId.trim())?.[1] ??
    (category && Object.hasOwn(WAPITI_CATEGORY_CWES, category) ? WAPITI_CATEGORY_CWES[category] : undefined);
  return cwe ? `cwe:${cwe}` : `category:${pluginId}`;
}

/** One segment of an API description's path: a literal, a parameter (`{userId}`) or both (`{name}.json`). */
type SegmentPattern = { kind: 'literal'; text: string } | { kind: 'param' } | { kind: 'partial'; pieces: string[] };

/** A node of the compiled description: the paths continuing from here, one segment further. */
interface TemplateNode {
  literal: Map<string, TemplateNode>;
  partial: { pieces: string[]; node: TemplateNode }[];
  param?: TemplateNode;
  /** The issue path of a path ending here (its parameters as `{id}`). */
  template?: string;
}

/**
 * An API description's paths compiled for matching (pathTemplates): a tree by segment, so that matching a path reads
 * each of its segments once per candidate node, whatever the number of paths.
 */
export interface PathTemplates {
  /** The server base paths (`/api/v1`; '' for none), longest first: a description's paths are relative to them. */
  bases: string[][];
  root: TemplateNode;
  size: number;
  /** The same for the same paths and base paths, whatever their order: what a scan's digest was computed with. */
  key: string;
}

const newNode = (): TemplateNode => ({ literal: new Map(), partial: [] });

/**
 * A segment's pattern: `{name}` alone is a parameter; literal text with parameters is split at them (the literal
 * pieces between, the first and last possibly empty: `{name}.json` is ['', '.json']).
 */
function segmentPattern(segment: string): SegmentPattern {
  if (TEMPLATE.test(segment)) return { kind: 'param' };
  if (!segment.includes('{')) return { kind: 'literal', text: segment };
  const pieces: string[] = [];
  let rest = segment;
  for (let open = rest.indexOf('{'); open >= 0; open = rest.indexOf('{')) {
    const close = rest.indexOf('}', open);
    if (close < 0) break;
    pieces.push(rest.slice(0, open));
    rest = rest.slice(close + 1);
  }
  pieces.push(rest);
  return pieces.length === 1 ? { kind: 'literal', text: segment } : { kind: 'partial', pieces };
}

/**
 * Whether `text` has the literal pieces in order with at least one character for each parameter between them: the
 * first piece a prefix, the last a suffix, each middle one found leftmost (which leaves the most room for the pieces
 * after it, as in shared/input/wildcard.ts): linear in the text, nothing backtracks.
 */
function matchesPieces(pieces: string[], text: string): boolean {
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  if (text.length < first.length + last.length + pieces.length - 1) return false;
  if (!text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length + 1;
  const end = text.length - last.length - 1;
  for (const piece of pieces.slice(1, -1)) {
    const found = text.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length + 1;
  }
  return true;
}

const pathSegments = (path: string) => path.split('/').filter((s) => s !== '');

/**
 * An API description's paths compiled once (per import, per diff) into a matcher for issuePath. `paths`: the keys of
 * its `paths` object (`/users/{userId}`, `/users/me`, `/files/{name}.json`); `basePaths`: the paths of its servers'
 * URLs (`/api/v1`), against which the paths are relative. The first of two paths of the same form wins.
 */
export function pathTemplates(paths: Iterable<string>, basePaths: Iterable<string> = []): PathTemplates {
  const root = newNode();
  let size = 0;
  const listed = [...paths];
  for (const path of listed) {
    let node = root;
    const template: string[] = [];
    for (const segment of pathSegments(path)) {
      const pattern = segmentPattern(segment);
      if (pattern.kind === 'literal') {
        let next = node.literal.get(pattern.text);
        if (!next) node.literal.set(pattern.text, (next = newNode()));
        node = next;
        template.push(pattern.text);
      } else if (pattern.kind === 'param') {
        node = node.param ??= newNode();
        template.push(ID_SEGMENT);
      } else {
        const key = pattern.pieces.join(ID_SEGMENT);
        let entry = node.partial.find((p) => p.pieces.join(ID_SEGMENT) === key);
        if (!entry) node.partial.push((entry = { pieces: pattern.pieces, node: newNode() }));
        node = entry.node;
        template.push(key);
      }
    }
    if (node.template === undefined) {
      node.template = `/${template.join('/')}`;
      size++;
    }
  }
  const bases = [...new Set([...basePaths].map((b) => pathSegments(b).join('/')))]
    .filter((b) => b !== '')
    .map((b) => b.split('/'))
    .sort((a, b) => b.length - a.length);
  const key = createHash('sha256')
    .update(JSON.stringify([[...listed].sort(), bases.map((b) => b.join('/')).sort()]))
    .digest('base64url')
    .slice(0, 22);
  return { bases: [...bases, []], root, size, key };
}

/**
 * The template of the path `segments` (from `from`) in the compiled description: a literal segment before a partial
 * one before a parameter, as OpenAPI matches concrete paths before templated ones. A depth-first walk of the tree
 * with its own stack: each node is tried at most once, so the cost is bounded by the description's size (and in
 * practice by the path's length times a node's choices), and no path's length can overflow the call stack.
 */
function templateOf(root: TemplateNode, segments: string[], from: number): string | undefined {
  const stack: [TemplateNode, number][] = [[root, from]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [node, at] = top;
    if (at === segments.length) {
      if (node.template !== undefined) return node.template;
      continue;
    }
    const segment = segments[at];
    // Pushed in reverse order of preference: the literal is popped first.
    if (node.param) stack.push([node.param, at + 1]);
    for (let i = node.partial.length - 1; i >= 0; i--) {
      if (matchesPieces(node.partial[i].pieces, segment)) stack.push([node.partial[i].node, at + 1]);
    }
    const literal = node.literal.get(segment);
    if (literal) stack.push([literal, at + 1]);
  }
  return undefined;
}

/** The URI's path segments as normalizedPath reads them (origin, query and fragment dropped, escapes decoded). */
function uriSegments(uri: string): string[] {
  const withoutOrigin = uri.replace(/^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i, '');
  return pathSegments(withoutOrigin.split(/[?#]/, 1)[0]).map(decodeSegment);
}

/**
 * The issue path of a URI: its path as the API description names it when one of the description's paths matches
 * (under one of its server base paths: `/api/v1/users/alice` is `/api/v1/users/{id}` for `/users/{userId}` with the
 * server `https://shop.test/api/v1`), else normalizedPath. The description is matched against the URI's own
 * segments, so a literal segment of the description that looks like an id (`/v2/2024/report`) still matches.
 */
export function issuePath(uri: string, templates?: PathTemplates): string {
  if (!templates?.size) return normalizedPath(uri);
  const segments = uriSegments(uri);
  for (const base of templates.bases) {
    if (base.length > segments.length || base.some((b, i) => b !== segments[i])) continue;
    const template = templateOf(templates.root, segments, base.length);
    if (template !== undefined) return base.length ? `/${base.join('/')}${template === '/' ? '' : template}` : template;
  }
  return normalizedPath(uri);
}

/**
 * SHA-256 (hex) of the issue's identity: application and environment ids, the weakness (weaknessOf), upper-cased
 * method, the issue path (issuePath) and the parameter, JSON-encoded like findingHash's.
 */
export function issueId(issue: IssueIdentity, templates?: PathTemplates): string {
  const identity = [
    'issue',
    issue.applicationId,
    issue.environmentId,
    weaknessOf(issue.cweId, issue.pluginId),
    issue.method.toUpperCase(),
    issuePath(issue.uri, templates),
    issue.param,
  ];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

/** The issue of a URI of a scan's alert (as stored: its alert's CWE and rule, its method, URI and parameter). */
export const issueIdOfUri = (
  scan: { applicationId: string; environmentId: string },
  alert: { cweId: string; pluginId: string },
  u: { requestMethod: string; uri: string; param: string },
  templates?: PathTemplates,
) =>
  issueId(
    {
      applicationId: scan.applicationId,
      environmentId: scan.environmentId,
      cweId: alert.cweId,
      pluginId: alert.pluginId,
      method: u.requestMethod,
      uri: u.uri,
      param: u.param,
    },
    templates,
  );

/**
 * The findings that stand for their issues (docs/ISSUES.md, The findings report and its counts): of the findings of
 * one issue, the first in `order` (`scopeOf`: what else, besides the issue id, keeps two findings' issues apart, such
 * as their environment when the ids come from several). A count of issues counts these.
 */
export function issueRepresentatives<T extends { issueId: string }>(
  findings: Iterable<T>,
  order: (a: T, b: T) => number,
  scopeOf: (finding: T) => string = () => '',
): T[] {
  const chosen = new Map<string, T>();
  for (const f of findings) {
    const key = `${scopeOf(f)}\n${f.issueId}`;
    const held = chosen.get(key);
    if (!held || order(f, held) < 0) chosen.set(key, f);
  }
  return [...chosen.values()].sort(order);
}

/** The stream of scans reported by HawkScan (or any scanner that names no other tool). */
export const HAWKSCAN_STREAM = 'hawkscan';

/** A stream's name for an imported report's tool: its tool id, and a SARIF log's driver name after `sarif:`. */
export function streamOfTool(tool: string, toolName: string): string {
  if (tool !== 'sarif') return tool;
  return `sarif:${toolName.trim().toLowerCase().slice(0, 64)}`;
}

/**
 * The stream of a scan from what it reports: an imported report's `importedFrom` tag (`zap-xml`, `nuclei-jsonl`,
 * `sarif`: then the driver named in its version field), a hosted run's engine (its version field), else HawkScan.
 * The same for the import operation, the CLI's import and the upgrade of scans stored before streams.
 */
export function streamOfLabels(scan: Pick<ScanRecord, 'hawkscanVersion' | 'tags'>): string {
  const imported = scan.tags.find((tag) => tag.name === 'importedFrom')?.value;
  if (imported) {
    const tool = imported.split('-')[0];
    if (tool !== 'sarif') return tool;
    const version = scan.tags.find((tag) => tag.name === 'toolVersion')?.value;
    const name =
      version && scan.hawkscanVersion.endsWith(` ${version}`)
        ? scan.hawkscanVersion.slice(0, -version.length - 1)
        : scan.hawkscanVersion;
    return streamOfTool('sarif', name);
  }
  const engine = AGENT.exec(scan.hawkscanVersion)?.[1];
  return engine && engine !== 'no engine' ? engine.toLowerCase() : HAWKSCAN_STREAM;
}

/** The scan's stream: as recorded, or (a scan stored before streams) from its labels. */
export const streamOf = (scan: Pick<ScanRecord, 'stream' | 'hawkscanVersion' | 'tags'>) =>
  scan.stream ?? streamOfLabels(scan);

/** The stream whose latest scan is `scanId`, if any. */
export const streamHeadedBy = (streams: EnvironmentStreams, scanId: string) =>
  Object.entries(streams).find(([, head]) => head.scanId === scanId)?.[0];

export interface OpenIssues {
  /** The distinct issues of its open findings (a record written before issues: its hash). */
  count: number;
  /** The tool streams of its open findings, sorted. */
  streams: string[];
  /**
   * With two streams or more and at most TOOLS_KEPT open issues: each open issue's streams, sorted (with one stream,
   * every open issue has that one; with more issues, readers read the findings for their tools).
   */
  tools?: Record<string, string[]>;
  /** A write changed which findings are open without recounting: read the findings instead. */
  stale?: true;
}

/**
 * The most open issues whose tools the summary lists: an entry is a 64-character issue id and its streams (about 80
 * bytes), so the item stays near 80 KB, far inside DynamoDB's 400 KB item and the 4 MB of its publication's
 * transaction, whatever the environment's size.
 */
export const TOOLS_KEPT = 1_000;

/**
 * An issue's tools by a summary (undefined: stale, or too many issues of several streams to list: read the
 * findings). With one stream, that stream whether or not the issue is open: exact for a row of that stream, whose own
 * stream its tools always include.
 */
export function issueToolsOf(summary: OpenIssues | undefined, issueId: string): string[] | undefined {
  if (!summary || summary.stale) return undefined;
  if (summary.tools) return Object.hasOwn(summary.tools, issueId) ? summary.tools[issueId] : [];
  return summary.streams.length > 1 ? undefined : summary.streams;
}

/** The alert's counted URI number ranges, in number order. */
export function committedRanges(alert: AlertRecord): [number, number][] {
  return (alert.committed ?? [[0, alert.nextUri]]).slice().sort((a, b) => a[0] - b[0]);
}

/** Each alert record's sorted ranges, computed once per record read (a scan's URIs check theirs one by one). */
const sortedRanges = new WeakMap<AlertRecord, [number, number][]>();

/** Whether URI number `n` of the alert is counted. */
export function isCommitted(alert: AlertRecord, n: number): boolean {
  let ranges = sortedRanges.get(alert);
  if (!ranges) sortedRanges.set(alert, (ranges = committedRanges(alert)));
  return ranges.some(([first, count]) => n >= first && n < first + count);
}

/** The URI numbers of the alert's counted URIs at positions [from, from + size), in order. */
export function committedNumbers(alert: AlertRecord, from: number, size: number): number[] {
  const numbers: number[] = [];
  let position = 0;
  for (const [first, count] of committedRanges(alert)) {
    for (let i = Math.max(0, from - position); i < count && numbers.length < size; i++) numbers.push(first + i);
    position += count;
    if (numbers.length >= size) break;
  }
  return numbers;
}

/** The name of an alert's count in findingsCount: it fails when the alert has had its most reports. */
export const reportsFull = (pluginId: string) => `reportsFull:${pluginId}`;

/** A reported URI as an absolute URL: relative ones are on the scan's host. */
export const absoluteUrl = (uri: string, host: string) =>
  /^https?:\/\//i.test(uri) ? uri : `${host.replace(/\/+$/, '')}/${uri.replace(/^\/+/, '')}`;

export const MAX_RULE_HISTORY = 200;

/** A finding record as published scans have it: a pending write's record reads as the one it replaced. */
export function resolvedFinding<T extends Partial<FindingRecord>>(
  record: T | undefined,
  pending: Set<string>,
): T | undefined {
  if (!record?.recordedBy || !pending.has(record.recordedBy)) return record;
  return (record.previous ?? undefined) as T | undefined;
}

const AGENT = /^hawk-scanner agent \((.+)\)$/;

// An environment's open issues by severity (docs/DATA-MODEL.md, Findings report; issue-summary.ts).

/** A finding as its environment's open issues count it (issue-summary.ts). */
export type SummaryFinding = Pick<FindingRecord, 'findingHash' | 'issueId' | 'stream' | 'fixedAt' | 'verifiedFixedAt'>;

/** Open as the findings report counts it: neither fixed nor verified fixed. */
export const isOpenFinding = (f: SummaryFinding) => f.fixedAt === undefined && f.verifiedFixedAt === undefined;

type CountedFinding = SummaryFinding & Pick<FindingRecord, 'severity'>;
const RANK: Record<string, number> = { High: 3, Medium: 2, Low: 1 };
const SEVERITY_FIELD = ['openIssuesInfo', 'openIssuesLow', 'openIssuesMedium', 'openIssuesHigh'] as const;

/**
 * An environment's open issues by severity (EnvironmentRecord.openIssues*; docs/GOVERNANCE.md, The overview): the
 * issues openIssuesOf counts, each once in the highest risk severity of its open findings (an issue whose open
 * findings are all Info counts in `openIssuesInfo`: the four sum to the summary's count). From all its finding
 * records, as the summary.
 */
export function openIssueCountsOf(findings: Iterable<CountedFinding>): OpenIssueCounts {
  const rank = new Map<string, number>();
  for (const f of findings) {
    if (!isOpenFinding(f)) continue;
    const id = f.issueId ?? f.findingHash;
    rank.set(id, Math.max(rank.get(id) ?? 0, RANK[f.severity] ?? 0));
  }
  const counts = { ...NO_OPEN_ISSUES };
  for (const r of rank.values()) counts[SEVERITY_FIELD[r]!]! += 1;
  return counts;
}

/**
 * The change of the open issues by severity that one issue's findings make from `before` to `after` (each all the
 * findings of that issue in the environment): what a write that changes some of them moves the counts by.
 */
export function issueCountsChange(
  counts: OpenIssueCounts,
  before: Iterable<CountedFinding>,
  after: Iterable<CountedFinding>,
): OpenIssueCounts {
  const [was, is] = [openIssueCountsOf(before), openIssueCountsOf(after)];
  // A field the counts lack (openIssuesInfo on older records) stays absent.
  return Object.fromEntries(
    Object.entries(counts)
      .filter(([, n]) => n !== undefined)
      .map(([field, n]) => [field, n! - was[field as keyof OpenIssueCounts]! + is[field as keyof OpenIssueCounts]!]),
  ) as unknown as OpenIssueCounts;
}

/** Prefix bytes kept of each shared issue's id (hex SHA-256): two issues of one prefix both read as shared. */
const SHARED_PREFIX_BYTES = 4;
const SHARED_PREFIX = new RegExp(`^[0-9a-f]{${SHARED_PREFIX_BYTES * 2}}`);
const sharedPrefixOf = (issueId: string) => issueId.slice(0, SHARED_PREFIX_BYTES * 2);

/** Shared issues an environment's summary names at most (64 KiB of prefixes); with more, it names none. */
export const SHARED_ISSUES_KEPT = 16_384;

/**
 * An environment's issues with more than one detection (keys.sharedIssues; docs/ISSUES.md, What an issue shares),
 * from every finding record of the environment, as its publications write it (trends/projections/shared-issues.ts).
 */
export interface SharedIssues {
  /** The issues with two finding records or more. */
  count: number;
  /** Their ids' first SHARED_PREFIX_BYTES bytes, sorted (absent: none is shared, or `unknown`). */
  prefixes?: Uint8Array;
  /**
   * Any issue may be shared: more than SHARED_ISSUES_KEPT are, or a record has no issue yet (data written before
   * issues, which the upgrade assigns one later: docs/ISSUES.md, Upgrade).
   */
  unknown?: true;
}

/** The shared issues of an environment's finding records (all of them, as readers resolve them). */
export function sharedIssuesOf(findings: Iterable<Pick<FindingRecord, 'findingHash' | 'issueId'>>): SharedIssues {
  const firstOf = new Map<string, string>();
  const shared = new Set<string>();
  let unassigned = false;
  for (const f of findings) {
    if (!f.issueId) unassigned = true;
    else if (!firstOf.has(f.issueId)) firstOf.set(f.issueId, f.findingHash);
    else if (firstOf.get(f.issueId) !== f.findingHash) shared.add(f.issueId);
  }
  const unlike = [...shared].some((id) => !SHARED_PREFIX.test(id)); // every issue id is hex (issueId above)
  if (unassigned || unlike || shared.size > SHARED_ISSUES_KEPT) return { count: shared.size, unknown: true };
  if (shared.size === 0) return { count: 0 };
  const prefixes = [...new Set([...shared].map(sharedPrefixOf))].sort();
  return { count: shared.size, prefixes: Buffer.from(prefixes.join(''), 'hex') };
}

/**
 * Whether an issue of the environment may have another detection than one finding's, by its summary as stored
 * (undefined: none, data written before it): true for every issue without a summary or when it names none.
 */
export function mayBeShared(summary: SharedIssues | undefined): (issueId: string) => boolean {
  if (!summary || summary.unknown) return () => true;
  if (!summary.prefixes?.length) return () => false;
  const hex = Buffer.from(summary.prefixes).toString('hex');
  const prefixes = new Set<string>();
  for (let i = 0; i < hex.length; i += SHARED_PREFIX_BYTES * 2) prefixes.add(hex.slice(i, i + SHARED_PREFIX_BYTES * 2));
  return (issueId) => prefixes.has(sharedPrefixOf(issueId));
}
