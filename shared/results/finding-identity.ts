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
