import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { config } from '../config.ts';
import { signingKey } from './signing-key.ts';
import { isPermission, type Permission } from '../context/permissions.ts';
import type { KeyScope } from '../context/caller.ts';

// Access tokens are JWTs (RFC 7519) signed with HS256, and only that: a token's header must say alg HS256 (typ
// optional) and nothing else, so `alg: none`, other algorithms and extensions (crit, b64, jku...) are refused
// before any signature check. Signed and verified with node:crypto's HMAC, synchronously: jose (which the tests
// still use to check these tokens independently) computes HS256 through WebCrypto, a thread-pool job per sign or
// verify; every request verifies one, and that cost ~0.15 ms of CPU per request and a thread hop (a profile of
// the request path: 1.57-1.68 -> 1.41-1.43 ms CPU per GET /api/v1/app/{appId}, p50 2.32 -> 2.22 ms, in one run).
const ISSUER = 'hawk-api';
const ALGORITHM = 'HS256';
const HEADER = Buffer.from(JSON.stringify({ alg: ALGORITHM, typ: 'JWT' })).toString('base64url');

export interface AccessTokenClaims {
  userId: string;
  /** The API key the session started with (claim `akid`): refresh ends when that key is revoked. */
  apiKeyId: string;
  issuedAt: number;
  expiresAt: number;
  tokenId: string;
  /** What the session is narrowed to (claims `scp`, `app`, `org`); absent: the user's whole permissions. */
  scope?: KeyScope;
  /** The run whose hosted runner the token was issued for (claim `run`, shared/perch/runner.ts runnerToken). */
  launchedFor?: string;
}

/** A token's `akid` of a single sign-on session (shared/identity/sso-sessions.ts): such a token must name its organization. */
const SSO_SESSION_PREFIX = 'sso.';

const encodePart = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The signature part of `header.payload`, base64url (no padding). */
async function signatureOf(signingInput: string): Promise<string> {
  return createHmac('sha256', await signingKey())
    .update(signingInput)
    .digest('base64url');
}

/**
 * A real three-part JWT (sub, iat, exp, jti): public clients decode `exp` to plan their next login. A key that
 * expires sooner than the token would (`notAfter`, ms) ends it then; a narrowed key's scope rides in the token
 * (`scp`, `app`), so applying it costs no read.
 */
export async function issueAccessToken(
  userId: string,
  apiKeyId: string,
  now = Date.now(),
  options: { scope?: KeyScope; notAfter?: number; lifetimeSeconds?: number; launchedFor?: string } = {},
): Promise<string> {
  const issuedAt = Math.floor(now / 1000);
  // A token issued for one task (the hosted runner's, narrowed to its run) may last that task rather than a session.
  const { scope, notAfter, lifetimeSeconds = config.tokenLifetimeSeconds, launchedFor } = options;
  const lifetimeEnd = issuedAt + lifetimeSeconds;
  const payload = encodePart({
    akid: apiKeyId,
    sub: userId,
    iss: ISSUER,
    iat: issuedAt,
    exp: notAfter === undefined ? lifetimeEnd : Math.min(lifetimeEnd, Math.floor(notAfter / 1000)),
    jti: randomUUID(),
    ...(scope?.permissions ? { scp: scope.permissions } : {}),
    ...(scope?.applicationId ? { app: scope.applicationId } : {}),
    ...(scope?.organizationId ? { org: scope.organizationId } : {}),
    ...(launchedFor ? { run: launchedFor } : {}),
  });
  const signingInput = `${HEADER}.${payload}`;
  return `${signingInput}.${await signatureOf(signingInput)}`;
}

export class InvalidTokenError extends Error {}

/** A JSON object from a base64url part, else InvalidTokenError(`reason`). */
function decodePart(part: string, reason: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidTokenError(reason);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new InvalidTokenError(reason);
  return value as Record<string, unknown>;
}

/** Verifies algorithm (only HS256), signature, issuer and expiry (and `nbf` when present), then the claims we need. */
export async function verifyAccessToken(token: string, now = Date.now()): Promise<AccessTokenClaims> {
  const parts = token.split('.');
  if (parts.length !== 3) throw new InvalidTokenError('malformed token');
  const [header, payload, signature] = parts;
  const protectedHeader = decodePart(header, 'malformed token header');
  if (protectedHeader.alg !== ALGORITHM) throw new InvalidTokenError('algorithm not allowed');
  if (Object.keys(protectedHeader).some((name) => name !== 'alg' && name !== 'typ'))
    throw new InvalidTokenError('unsupported token header');
  // The signature as we would write it, compared as text in constant time: one encoding only (no padding, no
  // other base64 alphabet or trailing bits), so a token cannot be altered into another that still verifies.
  const expected = Buffer.from(await signatureOf(`${header}.${payload}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new InvalidTokenError('signature verification failed');
  const claims = decodePart(payload, 'malformed token claims');
  const seconds = Math.floor(now / 1000);
  if (claims.iss !== ISSUER) throw new InvalidTokenError('unexpected issuer');
  if (
    typeof claims.sub !== 'string' ||
    typeof claims.exp !== 'number' ||
    typeof claims.iat !== 'number' ||
    typeof claims.akid !== 'string'
  ) {
    throw new InvalidTokenError('token lacks sub, iat, exp or akid');
  }
  if (claims.exp <= seconds) throw new InvalidTokenError('token expired');
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > seconds))
    throw new InvalidTokenError('token not yet valid');
  const scope = scopeOf(claims);
  if (claims.akid.startsWith(SSO_SESSION_PREFIX) && !scope?.organizationId)
    throw new InvalidTokenError('a single sign-on session token names no organization');
  if (claims.run !== undefined && typeof claims.run !== 'string') throw new InvalidTokenError('malformed run claim');
  return {
    userId: claims.sub,
    apiKeyId: claims.akid,
    issuedAt: claims.iat,
    expiresAt: claims.exp,
    tokenId: String(claims.jti ?? ''),
    ...(scope ? { scope } : {}),
    ...(claims.run ? { launchedFor: claims.run } : {}),
  };
}

/** The `scp`, `app` and `org` claims, when present (a signed token with malformed ones is refused all the same). */
function scopeOf(claims: Record<string, unknown>): KeyScope | undefined {
  const { scp, app, org } = claims;
  if (scp === undefined && app === undefined && org === undefined) return undefined;
  if (scp !== undefined && (!Array.isArray(scp) || !scp.every((p) => typeof p === 'string' && isPermission(p))))
    throw new InvalidTokenError('malformed scp claim');
  if (app !== undefined && typeof app !== 'string') throw new InvalidTokenError('malformed app claim');
  if (org !== undefined && typeof org !== 'string') throw new InvalidTokenError('malformed org claim');
  return {
    ...(scp ? { permissions: scp as Permission[] } : {}),
    ...(app ? { applicationId: app } : {}),
    ...(org ? { organizationId: org } : {}),
  };
}
