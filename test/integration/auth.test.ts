import { PERMISSIONS } from '../../shared/context/permissions.ts';
import { describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { readFileSync } from 'node:fs';
import { api } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';
import { createApiKey, revokeApiKey, listUserApiKeys } from '../../shared/identity/admin.ts';
import { fromProtobuf } from '../protobuf-reference.ts';

const signingSecret = () => new TextEncoder().encode(readFileSync(process.env.SIGNING_KEY_FILE!, 'utf8').trim());
const forge = async (claims: Record<string, unknown>, secret = signingSecret()) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(secret);

describe('login and refresh (docs/API.md, Sessions)', () => {
  it('exchanges an API key for a three-part JWT with sub, iat, exp = iat + 30 min and a unique id', async () => {
    const tenant = await createTenant();
    const claims = decodeJwt(tenant.token);
    expect(tenant.token.split('.')).toHaveLength(3);
    expect(decodeProtectedHeader(tenant.token).alg).toBe('HS256');
    expect(claims.sub).toBe(tenant.userId);
    expect(claims.exp! - claims.iat!).toBe(30 * 60);
    expect(Math.abs(claims.iat! - Date.now() / 1000)).toBeLessThan(60);
    const second = await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': tenant.apiKey } });
    expect(decodeJwt(second.body.token).jti).not.toBe(claims.jti);
  });

  it('answers 401 for a missing or unknown API key', async () => {
    expect((await api('GET', '/api/v1/auth/login')).status).toBe(401);
    const unknown = await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': 'hawk.nope.nope' } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ message: expect.stringContaining('API key') });
  });

  it('refresh returns a new token with a later expiry, usable for requests', async () => {
    const tenant = await createTenant();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const refreshed = await api('GET', '/api/v1/auth/refresh-token', { token: tenant.token });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body.token).exp!).toBeGreaterThan(decodeJwt(tenant.token).exp!);
    expect((await api('GET', '/api/v1/user', { token: refreshed.body.token })).status).toBe(200);
  });

  it('refuses missing, malformed, expired, tampered, alg:none and wrong-key tokens with 401', async () => {
    const tenant = await createTenant();
    const now = Math.floor(Date.now() / 1000);
    const [header, payload, signature] = tenant.token.split('.');
    const tamperedPayload = Buffer.from(
      JSON.stringify({ ...decodeJwt(tenant.token), sub: '00000000-0000-4000-8000-000000000000' }),
    ).toString('base64url');
    const noneHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const candidates = {
      missing: undefined,
      malformed: 'not-a-jwt',
      expired: await forge({
        sub: tenant.userId,
        akid: decodeJwt(tenant.token).akid,
        iss: 'hawk-api',
        iat: now - 3600,
        exp: now - 1800,
      }),
      tampered: `${header}.${tamperedPayload}.${signature}`,
      algNone: `${noneHeader}.${payload}.`,
      wrongKey: await forge(
        { sub: tenant.userId, akid: decodeJwt(tenant.token).akid, iss: 'hawk-api', iat: now, exp: now + 600 },
        new TextEncoder().encode('x'.repeat(48)),
      ),
    };
    for (const [name, token] of Object.entries(candidates)) {
      const response = await api('GET', '/api/v1/user', { token });
      expect(response.status, name).toBe(401);
    }
    // The same secret with the right claims is accepted: the refusals above are about the token, not the user.
    expect(
      (
        await api('GET', '/api/v1/user', {
          token: await forge({
            sub: tenant.userId,
            akid: decodeJwt(tenant.token).akid,
            iss: 'hawk-api',
            iat: now,
            exp: now + 600,
          }),
        })
      ).status,
    ).toBe(200);
  });

  it('a revoked API key can no longer refresh its sessions; another key of the user is unaffected', async () => {
    const tenant = await createTenant();
    const second = await createApiKey({ userId: tenant.userId });
    const secondToken = (await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': second.apiKey } })).body.token;
    const [first] = (await listUserApiKeys({ userId: tenant.userId })).apiKeys.filter((k) => k.keyId !== second.keyId);
    expect(decodeJwt(tenant.token).akid).toBe(first.keyId);
    await revokeApiKey({ userId: tenant.userId, keyId: first.keyId });
    const refused = await api('GET', '/api/v1/auth/refresh-token', { token: tenant.token });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/revoked/);
    expect((await api('GET', '/api/v1/auth/refresh-token', { token: secondToken })).status).toBe(200);
  });

  it('a revoked API key can no longer log in', async () => {
    const tenant = await createTenant();
    const { apiKeys } = await listUserApiKeys({ userId: tenant.userId });
    expect(apiKeys).toHaveLength(1);
    expect(JSON.stringify(apiKeys)).not.toContain(tenant.apiKey.split('.')[2]);
    await revokeApiKey({ userId: tenant.userId, keyId: apiKeys[0].keyId });
    expect((await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': tenant.apiKey } })).status).toBe(401);
    const { apiKey } = await createApiKey({ userId: tenant.userId });
    expect((await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': apiKey } })).status).toBe(200);
  });

  it('gives no access to a user whose only organization lacks API access', async () => {
    const tenant = await createTenant({ apiAccess: false });
    const login = await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': tenant.apiKey } });
    expect(login.status).toBe(401);
    expect(login.body.message).toMatch(/API access/);
  });
});

describe('GET /api/v1/user', () => {
  it('returns the caller in the public user.UserResponse shape with its organizations and roles', async () => {
    const tenant = await createTenant();
    const response = await api('GET', '/api/v1/user', { token: tenant.token });
    expect(response.status).toBe(200);
    const external = response.body.user.external;
    expect(external.id).toBe(tenant.userId);
    expect(external.email).toMatch(/@example\.test$/);
    expect(external.organizations).toEqual([
      expect.objectContaining({ organization: expect.objectContaining({ id: tenant.orgId }), role: 'ADMIN' }),
    ]);
    expect(response.body.user.provider.slug).toBe('STACKHAWK');
    expect(typeof response.body.user.createdTimestamp).toBe('string'); // int64 as a JSON string
  });

  it('lists only organizations with API access', async () => {
    const enabled = await createTenant();
    const disabled = await createTenant({ apiAccess: false });
    const { addMember } = await import('../../shared/identity/admin.ts');
    await addMember({ organizationId: disabled.orgId, userId: enabled.userId });
    const response = await api('GET', '/api/v1/user', { token: enabled.token });
    expect(response.body.user.external.organizations.map((o: any) => o.organization.id)).toEqual([enabled.orgId]);
  });

  it('answers in protobuf when asked, carrying the same content as the JSON', async () => {
    const tenant = await createTenant();
    const json = await api('GET', '/api/v1/user', { token: tenant.token });
    const response = await fetch(new URL('/api/v1/user', (await import('./client.ts')).baseUrl()), {
      headers: { authorization: `Bearer ${tenant.token}`, accept: 'application/x-protobuf' },
    });
    expect(response.headers.get('content-type')).toBe('application/x-protobuf');
    const decoded = fromProtobuf('user.UserResponse', new Uint8Array(await response.arrayBuffer()));
    expect(decoded).toEqual(json.body);
  });

  it('answers 406 for an Accept header that allows neither JSON nor protobuf', async () => {
    const tenant = await createTenant();
    const response = await api('GET', '/api/v1/user', { token: tenant.token, headers: { accept: 'text/html' } });
    expect(response.status).toBe(406);
    expect(response.body.message).toMatch(/application\/json/);
  });
});

describe('errors', () => {
  it('answers unknown routes with 404 and a JSON message', async () => {
    const response = await api('GET', '/api/v1/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body.message).toMatch(/Not Found/);
  });

  it('a second user of the same organization sees the organization too', async () => {
    const tenant = await createTenant();
    const other = await addUserTo(tenant.orgId, ['read:application']);
    const response = await api('GET', '/api/v1/user', { token: other.token });
    expect(response.body.user.external.organizations[0]).toMatchObject({
      organization: { id: tenant.orgId },
      role: 'MEMBER',
      permissions: ['READ_APPLICATION'],
    });
  });

  it('lists the permissions the member holds, in the public names', async () => {
    const tenant = await createTenant();
    const response = await api('GET', '/api/v1/user', { token: tenant.token });
    // Every permission in its public name (read:scan_config -> READ_SCAN_CONFIG); ours without one are left out.
    const listed: string[] = response.body.user.external.organizations[0].permissions;
    expect(listed).toEqual(
      expect.arrayContaining([
        'READ_APPLICATION',
        'WRITE_SCAN_CONFIG',
        'DELETE_TEAM',
        'DELETE_SCAN',
        'READ_AUDIT',
        'READ_POLICY',
      ]),
    );
    expect(listed).not.toContain('WRITE_REPOSITORY');
    for (const name of listed) expect(PERMISSIONS.map((p) => p.replace(':', '_').toUpperCase())).toContain(name);
  });
});
