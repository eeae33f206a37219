import { createHash } from 'node:crypto';
import { UUID } from '../input/uuid.ts';

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
  for (const path of paths) {
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
  return { bases: [...bases, []], root, size };
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
