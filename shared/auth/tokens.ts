import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { config } from '../config.ts';
import { signingKey } from './signing-key.ts';

const ISSUER = 'hawk-api';
const ALGORITHM = 'HS256';

export interface AccessTokenClaims {
  userId: string;
  /** The API key the session started with (claim `akid`): refresh ends when that key is revoked. */
  apiKeyId: string;
  issuedAt: number;
  expiresAt: number;
  tokenId: string;
}

/** A real three-part JWT (sub, iat, exp, jti): public clients decode `exp` to plan their next login. */
export async function issueAccessToken(userId: string, apiKeyId: string, now = Date.now()): Promise<string> {
  const issuedAt = Math.floor(now / 1000);
  return new SignJWT({ akid: apiKeyId })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(ISSUER)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + config.tokenLifetimeSeconds)
    .setJti(randomUUID())
    .sign(await signingKey());
}

export class InvalidTokenError extends Error {}

/** Verifies signature, algorithm (only HS256: `alg: none` and others are refused), issuer and expiry. */
export async function verifyAccessToken(token: string): Promise<AccessTokenClaims> {
  try {
    const { payload } = await jwtVerify(token, await signingKey(), { algorithms: [ALGORITHM], issuer: ISSUER });
    if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number' || typeof payload.iat !== 'number' || typeof payload.akid !== 'string') {
      throw new InvalidTokenError('token lacks sub, iat, exp or akid');
    }
    return { userId: payload.sub, apiKeyId: payload.akid, issuedAt: payload.iat, expiresAt: payload.exp, tokenId: String(payload.jti ?? '') };
  } catch (error) {
    if (error instanceof InvalidTokenError) throw error;
    if (error instanceof joseErrors.JOSEError) throw new InvalidTokenError(error.code);
    throw error;
  }
}
