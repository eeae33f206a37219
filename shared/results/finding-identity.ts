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
  const withoutOrigin = uri.replace(/^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i, '');
  const path = withoutOrigin.split(/[?#]/, 1)[0];
  const segments = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      const decoded = decodeSegment(segment);
      return isIdLike(decoded) ? ID_SEGMENT : decoded;
    });
  return `/${segments.join('/')}`;
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

/**
 * A parameterized path template of an API description (`/users/{userId}`), split once: a path of as many segments
 * whose literal segments are equal takes the template's form (its parameters as `{id}`, as normalizedPath writes
 * them), so `/users/alice` is `/users/{id}` when the description says `/users/{userId}`.
 */
export type PathTemplates = Map<number, string[][]>;

/** The templates of an API description's paths, by segment count (literal segments; null for a parameter). */
export function pathTemplates(paths: Iterable<string>): PathTemplates {
  const out: PathTemplates = new Map();
  for (const path of paths) {
    const segments = path.split('/').filter((s) => s !== '');
    if (!segments.some((s) => TEMPLATE.test(s))) continue;
    const list = out.get(segments.length) ?? [];
    list.push(segments.map((s) => (TEMPLATE.test(s) ? ID_SEGMENT : s)));
    out.set(segments.length, list);
  }
  return out;
}

/**
 * The normalized path, templated by the API description's templates when one matches (the first, in the
 * description's order). Linear in the path's length times the templates of its segment count; no regular
 * expression runs on the path beyond normalizedPath's anchored ones.
 */
export function issuePath(uri: string, templates?: PathTemplates): string {
  const path = normalizedPath(uri);
  if (!templates?.size) return path;
  const segments = path.split('/').slice(1);
  for (const template of templates.get(segments.length) ?? []) {
    if (template.every((t, i) => t === ID_SEGMENT || t === segments[i])) return `/${template.join('/')}`;
  }
  return path;
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
) =>
  issueId({
    applicationId: scan.applicationId,
    environmentId: scan.environmentId,
    cweId: alert.cweId,
    pluginId: alert.pluginId,
    method: u.requestMethod,
    uri: u.uri,
    param: u.param,
  });
