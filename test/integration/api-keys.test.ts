import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { createApp, startScan } from './scan-helpers.ts';
import { auditTypes } from './app-helpers.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { addMember, createApiKey, createUser } from '../../shared/identity/admin.ts';
import { hashApiKey } from '../../shared/auth/api-keys.ts';
import { db } from '../../shared/db/client.ts';
import { config } from '../../shared/config.ts';
import { keys } from '../../shared/db/keys.ts';

// API keys in settings (docs/IDENTITY.md "API keys"): createUserKey, listUserKeys, revokeUserKey,
// listOrganizationKeys, revokeMemberKey.

const createKey = (token: string, body: Record<string, unknown>) => api('POST', '/api/v1/user/keys', { token, body });
const login = (apiKey: string) => api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': apiKey } });
const refresh = (token: string) => api('GET', '/api/v1/auth/refresh-token', { token });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function keyOf(tenant: Pick<Tenant, 'token'>, body: Record<string, unknown>) {
  const created = await createKey(tenant.token, body);
  expect(created.status, created.text).toBe(200);
  const session = await login(created.body.apiKey);
  expect(session.status, session.text).toBe(200);
  return {
    id: created.body.key.id as string,
    apiKey: created.body.apiKey as string,
    token: session.body.token as string,
  };
}

describe('API keys of the signed-in user', () => {
  it('creates a key shown once, lists metadata only (with its last use), and the key logs in', async () => {
    const tenant = await createTenant();
    const created = await createKey(tenant.token, { name: '  CI importer  ' });
    expect(created.status, created.text).toBe(200);
    const { key, apiKey } = created.body;
    expect(apiKey).toMatch(new RegExp(`^hawk\\.${key.id}\\.[A-Za-z0-9_-]{43}$`));
    expect(key).toMatchObject({
      name: 'CI importer',
      lastUsedAt: '',
      expiresAt: '',
      permissions: [],
      applicationId: '',
    });
    expect(Date.parse(key.createdAt)).toBeGreaterThan(Date.now() - 60_000);

    const session = await login(apiKey);
    expect(session.status).toBe(200);
    expect(decodeJwt(session.body.token).akid).toBe(key.id);
    expect(decodeJwt(session.body.token).scp).toBeUndefined();

    const listed = await api('GET', '/api/v1/user/keys', { token: tenant.token });
    expect(listed.status).toBe(200);
    expect(listed.body.keys.map((k: { id: string }) => k.id)).toContain(key.id);
    const entry = listed.body.keys.find((k: { id: string }) => k.id === key.id);
    expect(Object.keys(entry).sort()).toEqual(
      [
        'applicationId',
        'createdAt',
        'expiresAt',
        'id',
        'lastUsedAt',
        'name',
        'organizationId',
        'permissions',
        'userEmail',
        'userId',
      ].sort(),
    );
    expect(Date.parse(entry.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(key.createdAt));
    // The secret appears nowhere but in the creation's answer.
    expect(listed.text).not.toContain(apiKey.split('.')[2]);
    expect(listed.text).not.toMatch(/[0-9a-f]{64}/);
    expect(await auditTypes(tenant)).toContain('API_KEY_ADDED');
  });

  it('refuses bad input with 400 naming it, and creates nothing', async () => {
    const tenant = await createTenant();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /name/],
      [{ name: '   ' }, /name: must not be empty/],
      [{ name: 'x', expiresAt: '2001-01-01T00:00:00Z' }, /expiresAt: must be in the future/],
      [{ name: 'x', expiresAt: 'tomorrow' }, /expiresAt/],
      [{ name: 'x', permissions: ['write:everything'] }, /permissions/],
      [{ name: 'x', permissions: [] }, /permissions/],
      [{ name: 'x', applicationId: 'not-a-uuid' }, /applicationId/],
    ];
    for (const [body, message] of cases) {
      const out = await createKey(tenant.token, body);
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toMatch(message);
    }
    expect((await api('GET', '/api/v1/user/keys', { token: tenant.token })).body.keys).toHaveLength(1);
  });

  it('an expiring key ends its sessions when it expires: the token expires with it, login and refresh then fail', async () => {
    const tenant = await createTenant();
    const expiresAt = Date.now() + 4000;
    const key = await keyOf(tenant, { name: 'short', expiresAt: new Date(expiresAt).toISOString() });
    expect(decodeJwt(key.token).exp).toBe(Math.floor(expiresAt / 1000));
    expect((await refresh(key.token)).status).toBe(200);
    await sleep(expiresAt - Date.now() + 1100);
    const refused = await login(key.apiKey);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/expired/);
    expect((await refresh(key.token)).status).toBe(401);
    // Milliseconds since the epoch are accepted too.
    expect((await createKey(tenant.token, { name: 'ms', expiresAt: Date.now() + 86_400_000 })).status).toBe(200);
  });

  it('revocation: login and refresh answer 401, and its tokens are refused at once; other keys are unaffected', async () => {
    const tenant = await createTenant();
    const key = await keyOf(tenant, { name: 'to revoke' });
    const other = await keyOf(tenant, { name: 'kept' });
    const appId = await createApp(tenant);
    expect((await api('GET', `/api/v1/app/${appId}`, { token: key.token })).status).toBe(200);

    const revoked = await api('DELETE', `/api/v1/user/keys/${key.id}`, { token: tenant.token });
    expect(revoked.status, revoked.text).toBe(200);
    expect((await login(key.apiKey)).status).toBe(401);
    expect((await refresh(key.token)).status).toBe(401);
    // The per-request membership read sees the revocation: no wait for the token to expire.
    expect((await api('GET', `/api/v1/app/${appId}`, { token: key.token })).status).toBe(401);
    expect((await api('GET', `/api/v1/org/${tenant.orgId}/members`, { token: key.token })).status).toBe(401);
    expect((await api('GET', '/api/v1/user', { token: key.token })).status).toBe(401);
    expect((await api('GET', '/api/v1/user/keys', { token: key.token })).status).toBe(401);

    expect((await api('GET', `/api/v1/app/${appId}`, { token: other.token })).status).toBe(200);
    expect((await refresh(other.token)).status).toBe(200);
    const listed = await api('GET', '/api/v1/user/keys', { token: tenant.token });
    expect(listed.body.keys.map((k: { id: string }) => k.id)).not.toContain(key.id);
    expect((await api('DELETE', `/api/v1/user/keys/${key.id}`, { token: tenant.token })).status).toBe(404);
    expect((await api('DELETE', '/api/v1/user/keys/not.a.key', { token: tenant.token })).status).toBe(400);
    expect(await auditTypes(tenant)).toContain('API_KEY_REMOVED');
  });

  it("a user cannot see or revoke another user's keys through the user operations", async () => {
    const tenant = await createTenant();
    const stranger = await createTenant();
    const key = await keyOf(stranger, { name: 'theirs' });
    expect((await api('DELETE', `/api/v1/user/keys/${key.id}`, { token: tenant.token })).status).toBe(404);
    const mine = await api('GET', '/api/v1/user/keys', { token: tenant.token });
    expect(mine.body.keys.map((k: { id: string }) => k.id)).not.toContain(key.id);
    expect((await login(key.apiKey)).status).toBe(200);
  });
});

describe('narrowed keys', () => {
  it('a write:scan key for one application reports scans there and is refused everywhere else', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const otherAppId = await createApp(tenant, { name: 'other', env: 'dev' });
    const ci = await keyOf(tenant, { name: 'CI', permissions: ['write:scan'], applicationId: appId });
    expect(decodeJwt(ci.token)).toMatchObject({ scp: ['write:scan'], app: appId });

    await startScan(ci.token, appId);
    const body = { env: 'dev', config: 'app:\n  env: dev\n', hawkscanVersion: '4.1.0', host: 'https://t.test' };
    expect((await api('POST', `/api/v1/app/${otherAppId}/scan`, { token: ci.token, body })).status).toBe(401);
    // Other permissions on its own application, and organization operations, are outside its scope.
    expect((await api('GET', `/api/v1/app/${appId}`, { token: ci.token })).status).toBe(401);
    expect((await api('GET', `/api/v1/org/${tenant.orgId}/members`, { token: ci.token })).status).toBe(401);
    expect((await api('GET', '/api/v1/global-configuration/default', { token: ci.token })).status).toBe(401);
    // It cannot mint or revoke keys.
    expect((await createKey(ci.token, { name: 'escalate' })).status).toBe(401);
    expect((await api('DELETE', `/api/v1/user/keys/${ci.id}`, { token: ci.token })).status).toBe(401);
    // Refresh keeps the scope.
    const refreshed = await refresh(ci.token);
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body.token)).toMatchObject({ scp: ['write:scan'], app: appId });
    expect((await api('GET', `/api/v1/app/${appId}`, { token: refreshed.body.token })).status).toBe(401);
  });

  it('permission matrix: a key narrowed to some permissions passes exactly the operations needing one of them', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const operations: { permission: string; call: (token: string) => Promise<{ status: number }> }[] = [
      { permission: 'read:application', call: (t) => api('GET', `/api/v1/app/${appId}`, { token: t }) },
      {
        permission: 'read:application',
        call: (t) => api('GET', `/api/v2/org/${tenant.orgId}/apps`, { token: t }),
      },
      { permission: 'read:team', call: (t) => api('GET', `/api/v1/org/${tenant.orgId}/teams`, { token: t }) },
      { permission: 'read:audit', call: (t) => api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: t }) },
      { permission: 'read:member', call: (t) => api('GET', `/api/v1/org/${tenant.orgId}/members`, { token: t }) },
      { permission: 'write:member', call: (t) => api('GET', `/api/v1/org/${tenant.orgId}/keys`, { token: t }) },
      {
        permission: 'read:scan_config',
        call: (t) => api('GET', `/api/v1/configuration/${tenant.orgId}/list`, { token: t }),
      },
      { permission: 'read:scan', call: (t) => api('GET', `/api/v1/scan/${tenant.orgId}`, { token: t }) },
    ];
    const scopes = [['read:application'], ['read:team', 'read:audit'], ['read:member', 'write:member'], ['read:scan']];
    for (const permissions of scopes) {
      const key = await keyOf(tenant, { name: permissions.join(' '), permissions });
      for (const { permission, call } of operations) {
        const status = (await call(key.token)).status;
        expect(status, `${permission} with a key of ${permissions.join(', ')}`).toBe(
          permissions.includes(permission) ? 200 : 401,
        );
      }
    }
    // The whole key passes them all.
    for (const { call } of operations) expect((await call(tenant.token)).status).toBe(200);
  });

  it("a key's permissions never exceed the member's: a narrowed key of a read-only member cannot write", async () => {
    const tenant = await createTenant();
    const member = await addUserTo(tenant.orgId, ['read:application']);
    const key = await keyOf(member, { name: 'too wide', permissions: ['write:application', 'read:application'] });
    const create = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: key.token,
      body: { name: 'nope', env: 'dev' },
    });
    expect(create.status).toBe(401);
  });

  it('a key for an application the caller cannot reach is refused', async () => {
    const tenant = await createTenant();
    const stranger = await createTenant();
    const theirs = await createApp(stranger);
    const out = await createKey(tenant.token, { name: 'x', applicationId: theirs });
    expect(out.status).toBe(404);
  });
});

describe("an organization's member keys", () => {
  it('a member manager lists the keys that reach the organization and revokes those narrowed to it; others may not', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const member = await addUserTo(tenant.orgId, ['read:application', 'write:scan']);
    const laptop = await keyOf(member, { name: 'laptop' });
    const memberKey = await keyOf(member, { name: 'CI', permissions: ['write:scan'], applicationId: appId });
    const stranger = await createTenant();
    await keyOf(stranger, { name: 'elsewhere' });

    const listed = await api('GET', `/api/v1/org/${tenant.orgId}/keys`, { token: tenant.token });
    expect(listed.status, listed.text).toBe(200);
    const owners = new Set(listed.body.keys.map((k: { userId: string }) => k.userId));
    expect(owners).toEqual(new Set([tenant.userId, member.userId]));
    expect(listed.body.keys.find((k: { id: string }) => k.id === memberKey.id)).toMatchObject({
      name: 'CI',
      userId: member.userId,
      applicationId: appId,
      organizationId: tenant.orgId,
    });
    // A key of the member's whole account reaches this organization too: listed, with no organization of its own.
    expect(listed.body.keys.find((k: { id: string }) => k.id === laptop.id)).toMatchObject({ organizationId: '' });
    expect(listed.body.keys.find((k: { id: string }) => k.id === memberKey.id).userEmail).toMatch(/@example\.test$/);
    expect(listed.body.totalCount).toBe(2);
    expect(listed.text).not.toContain(memberKey.apiKey.split('.')[2]);

    // A member without write:member sees nothing and revokes nothing.
    expect((await api('GET', `/api/v1/org/${tenant.orgId}/keys`, { token: member.token })).status).toBe(401);
    const memberRevoke = `/api/v1/org/${tenant.orgId}/members/${tenant.userId}/keys/${memberKey.id}`;
    expect((await api('DELETE', memberRevoke, { token: member.token })).status).toBe(401);
    // Another organization's manager cannot reach this member's keys.
    const foreign = `/api/v1/org/${stranger.orgId}/members/${member.userId}/keys/${memberKey.id}`;
    expect((await api('DELETE', foreign, { token: stranger.token })).status).toBe(404);
    expect((await login(memberKey.apiKey)).status).toBe(200);
    // A key of the whole account serves the member's other organizations too: only its user revokes it.
    const whole = await api('DELETE', `/api/v1/org/${tenant.orgId}/members/${member.userId}/keys/${laptop.id}`, {
      token: tenant.token,
    });
    expect(whole.status, whole.text).toBe(403);
    expect(whole.body.message).toMatch(/only its user can revoke it/);
    expect((await login(laptop.apiKey)).status).toBe(200);

    const path = `/api/v1/org/${tenant.orgId}/members/${member.userId}/keys/${memberKey.id}`;
    expect((await api('DELETE', path, { token: tenant.token })).status).toBe(200);
    expect((await login(memberKey.apiKey)).status).toBe(401);
    expect((await refresh(memberKey.token)).status).toBe(401);
    const scans = await api('POST', `/api/v1/app/${appId}/scan`, { token: memberKey.token, body: {} });
    expect(scans.status).toBe(401);
    expect((await api('DELETE', path, { token: tenant.token })).status).toBe(404);
    expect((await auditTypes(tenant)).filter((t) => t === 'API_KEY_REMOVED')).toHaveLength(1);
  });

  it("another organization's keys of a shared member are never listed nor revoked there", async () => {
    // The victim is a member of V (their CI key narrowed to V's application) and also of E, whose owner attacks.
    const victimOrg = await createTenant();
    const victimApp = await createApp(victimOrg);
    const victim = await addUserTo(victimOrg.orgId, ['read:application', 'write:scan']);
    const attacker = await createTenant();
    await addMember({ organizationId: attacker.orgId, userId: victim.userId, roleName: 'READ_ONLY' });
    const ci = await keyOf(victim, { name: 'V CI', permissions: ['write:scan'], applicationId: victimApp });
    // As a key made before keys recorded their organization: found through its application.
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.apiKeyBySecretHash(hashApiKey(ci.apiKey)),
        UpdateExpression: 'REMOVE organizationId',
      }),
    );

    const listed = await api('GET', `/api/v1/org/${attacker.orgId}/keys`, { token: attacker.token });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.keys.map((k: { id: string }) => k.id)).not.toContain(ci.id);
    expect(listed.text).not.toContain(victimApp);
    expect(listed.text).not.toContain(victimOrg.orgId);
    // Revoking it through E: as unknown as a key that does not exist.
    const path = `/api/v1/org/${attacker.orgId}/members/${victim.userId}/keys/${ci.id}`;
    const refused = await api('DELETE', path, { token: attacker.token });
    expect(refused.status, refused.text).toBe(404);
    const unknown = await api('DELETE', `/api/v1/org/${attacker.orgId}/members/${victim.userId}/keys/nope`, {
      token: attacker.token,
    });
    expect(refused.body.message).toBe(unknown.body.message.replace('nope', ci.id));
    expect((await login(ci.apiKey)).status).toBe(200);
    expect((await refresh(ci.token)).status).toBe(200);
    expect(await auditTypes(attacker)).not.toContain('API_KEY_REMOVED');
    // V's own managers still see and revoke it.
    const own = await api('GET', `/api/v1/org/${victimOrg.orgId}/keys`, { token: victimOrg.token });
    expect(own.body.keys.map((k: { id: string }) => k.id)).toContain(ci.id);
  });

  it("a manager revokes only the keys of members they could change: not an owner's, unless an owner", async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const { userId: ownerId } = await createUser({ email: `owner-${randomUUID()}@example.test` });
    await addMember({ organizationId: tenant.orgId, userId: ownerId, role: 'OWNER' });
    const { apiKey } = await createApiKey({ userId: ownerId });
    const owner = { token: (await login(apiKey)).body.token as string };
    const ownerKey = await keyOf(owner, { name: 'owner CI', applicationId: appId });
    const manager = await addUserTo(tenant.orgId, ['read:member', 'write:member']);
    const path = `/api/v1/org/${tenant.orgId}/members/${ownerId}/keys/${ownerKey.id}`;
    const refused = await api('DELETE', path, { token: manager.token });
    expect(refused.status, refused.text).toBe(403);
    expect((await login(ownerKey.apiKey)).status).toBe(200);
    expect((await api('DELETE', path, { token: owner.token })).status).toBe(200);
  });
});
