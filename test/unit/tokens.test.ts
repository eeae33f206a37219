import { beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, decodeProtectedHeader, jwtVerify } from 'jose';

// shared/auth/tokens.ts signs and verifies HS256 with node:crypto; jose, an independent implementation, checks that
// what it issues is a valid JWT and that it refuses what jose would refuse (and the extensions we do not use).
const SECRET = 'a-test-signing-secret-of-more-than-32-characters';
const key = new TextEncoder().encode(SECRET);
let tokens: typeof import('../../shared/auth/tokens.ts');

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'hawk-tokens-')), 'signing.key');
  writeFileSync(file, `${SECRET}\n`);
  process.env.SIGNING_KEY_FILE = file;
  delete process.env.SIGNING_SECRET_ARN;
  tokens = await import('../../shared/auth/tokens.ts');
});

const now = () => Math.floor(Date.now() / 1000);
const claims = (overrides: Record<string, unknown> = {}) => ({
  sub: 'user-1',
  akid: 'key-1',
  iss: 'hawk-api',
  iat: now(),
  exp: now() + 600,
  ...overrides,
});
const signed = (payload: Record<string, unknown>, header: Record<string, unknown> = { alg: 'HS256' }, secret = key) =>
  new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(secret);
const refusal = (token: string) =>
  tokens.verifyAccessToken(token).then(
    () => 'accepted',
    (error: Error) => error.constructor.name,
  );

describe('access tokens (HS256 with node:crypto)', () => {
  it('issues a JWT that jose verifies with the same secret: header alg HS256 typ JWT, sub, akid, iss, iat, exp = iat + 30 min, jti', async () => {
    const token = await tokens.issueAccessToken('user-1', 'key-1');
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: 'hawk-api' });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toMatchObject({ sub: 'user-1', akid: 'key-1', iss: 'hawk-api' });
    expect(payload.exp! - payload.iat!).toBe(30 * 60);
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    const verified = await tokens.verifyAccessToken(token);
    expect(verified).toEqual({
      userId: 'user-1',
      apiKeyId: 'key-1',
      issuedAt: payload.iat,
      expiresAt: payload.exp,
      tokenId: payload.jti,
    });
  });

  it("carries the run a hosted runner's token was issued for (claim run), signed like the rest", async () => {
    const token = await tokens.issueAccessToken('user-1', 'key-1', Date.now(), { launchedFor: 'scan-key-1' });
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: 'hawk-api' });
    expect(payload.run).toBe('scan-key-1');
    expect(await tokens.verifyAccessToken(token)).toMatchObject({ launchedFor: 'scan-key-1' });
    const [header, , signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...payload, run: 'scan-key-2' })).toString('base64url');
    expect(await refusal(`${header}.${forged}.${signature}`)).toBe('InvalidTokenError');
  });

  it('accepts a token jose signed with the secret, with or without typ', async () => {
    expect(await refusal(await signed(claims()))).toBe('accepted');
    expect(await refusal(await signed(claims(), { alg: 'HS256', typ: 'JWT' }))).toBe('accepted');
  });

  it('refuses other algorithms, alg none, header extensions, a wrong key, tampering and non-canonical signatures', async () => {
    const good = await signed(claims());
    const [header, payload, signature] = good.split('.');
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    // Signed with the right secret by hand (jose will not sign a header extension it does not know).
    const withHeader = (value: object) => {
      const input = `${part(value)}.${payload}`;
      return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
    };
    const candidates: Record<string, string> = {
      hs512: await signed(claims(), { alg: 'HS512' }),
      algNone: `${part({ alg: 'none' })}.${payload}.`,
      crit: withHeader({ alg: 'HS256', crit: ['exp'], exp: 1 }),
      unencodedPayload: withHeader({ alg: 'HS256', b64: false, crit: ['b64'] }),
      keyUrl: withHeader({ alg: 'HS256', jku: 'https://attacker.example/keys' }),
      typOnly: withHeader({ typ: 'JWT' }),
      wrongKey: await signed(claims(), { alg: 'HS256' }, new TextEncoder().encode('x'.repeat(48))),
      tamperedPayload: `${header}.${part(claims({ sub: 'user-2' }))}.${signature}`,
      paddedSignature: `${good}=`,
      standardBase64Signature: `${header}.${payload}.${Buffer.from(signature, 'base64url').toString('base64')}`,
      twoParts: `${header}.${payload}`,
      fourParts: `${good}.${signature}`,
      headerNotJson: `${Buffer.from('not json').toString('base64url')}.${payload}.${signature}`,
      empty: '',
    };
    expect(
      await refusal(withHeader({ alg: 'HS256', typ: 'JWT' })),
      'the same header-signing helper with a plain header',
    ).toBe('accepted');
    for (const [name, token] of Object.entries(candidates))
      expect(await refusal(token), name).toBe('InvalidTokenError');
  });

  it('refuses expired, not-yet-valid, foreign-issuer tokens and tokens lacking a claim it needs', async () => {
    const candidates: Record<string, Record<string, unknown>> = {
      expired: claims({ iat: now() - 3600, exp: now() - 1 }),
      expiresNow: claims({ exp: now() }),
      notYetValid: claims({ nbf: now() + 300 }),
      otherIssuer: claims({ iss: 'someone-else' }),
      noIssuer: claims({ iss: undefined }),
      noAkid: claims({ akid: undefined }),
      numericSub: claims({ sub: 42 }),
      stringExp: claims({ exp: String(now() + 600) }),
      numericRun: claims({ run: 7 }),
    };
    for (const [name, payload] of Object.entries(candidates)) {
      const token = await signed(JSON.parse(JSON.stringify(payload)));
      expect(await refusal(token), name).toBe('InvalidTokenError');
    }
  });
});
