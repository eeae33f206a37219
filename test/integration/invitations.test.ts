import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { auditTypes } from './app-helpers.ts';
import { addMember, createApiKey, createUser } from '../../shared/identity/admin.ts';
import { db } from '../../shared/db/client.ts';
import { config } from '../../shared/config.ts';
import { keys } from '../../shared/db/keys.ts';
import { permissionsOfRole } from '../../shared/context/roles.ts';

// Invitations (docs/IDENTITY.md "Invitations"): createInvitation, listInvitations, revokeInvitation,
// acceptInvitation.

const invite = (tenant: Pick<Tenant, 'orgId' | 'token'>, body: Record<string, unknown>) =>
  api('POST', `/api/v1/org/${tenant.orgId}/invitations`, { token: tenant.token, body });
const pending = (tenant: Pick<Tenant, 'orgId' | 'token'>) =>
  api('GET', `/api/v1/org/${tenant.orgId}/invitations`, { token: tenant.token });
const revoke = (tenant: Pick<Tenant, 'orgId' | 'token'>, invitationId: string) =>
  api('DELETE', `/api/v1/org/${tenant.orgId}/invitations/${invitationId}`, { token: tenant.token });
const accept = (body: Record<string, unknown>) => api('POST', '/api/v1/invitations/accept', { body });
const acceptSignedIn = (token: string, body: Record<string, unknown>) =>
  api('POST', '/api/v1/user/invitations/accept', { token, body });
const memberIds = async (tenant: Pick<Tenant, 'orgId' | 'token'>) =>
  (await api('GET', `/api/v1/org/${tenant.orgId}/members`, { token: tenant.token })).body.users.map(
    (u: { external: { id: string } }) => u.external.id,
  );
const login = (apiKey: string) => api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': apiKey } });
const email = () => `invitee-${randomUUID()}@example.test`;

describe('invitations', () => {
  it('invites by e-mail; the token works once and makes a new user a member with the role and a first key', async () => {
    const admin = await createTenant();
    const address = email();
    const created = await invite(admin, { email: `  ${address} `, role: 'READ_ONLY' });
    expect(created.status, created.text).toBe(200);
    const { invitation, token } = created.body;
    expect(token).toMatch(new RegExp(`^${invitation.id}\\.[A-Za-z0-9_-]{43}$`));
    expect(invitation).toMatchObject({
      email: address,
      roleName: 'READ_ONLY',
      role: 'MEMBER',
      invitedBy: admin.userId,
    });
    expect(Date.parse(invitation.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);

    const listed = await pending(admin);
    expect(listed.status).toBe(200);
    expect(listed.body.invitations.map((i: { id: string }) => i.id)).toEqual([invitation.id]);
    expect(listed.text).not.toContain(token.split('.')[1]);
    expect(listed.text).not.toMatch(/[0-9a-f]{64}/);

    const accepted = await accept({ token, fullName: 'Ines Invitee' });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({
      organizationId: admin.orgId,
      userCreated: true,
      member: { email: address, fullName: 'Ines Invitee', roleName: 'READ_ONLY', role: 'MEMBER' },
    });
    expect(accepted.body.member.permissions).toEqual(permissionsOfRole('READ_ONLY'));
    // The first key signs the new member in, with the invited role.
    const session = await login(accepted.body.apiKey);
    expect(session.status, session.text).toBe(200);
    const user = await api('GET', '/api/v1/user', { token: session.body.token });
    expect(user.body.user.external.organizations).toMatchObject([
      { organization: { id: admin.orgId }, role: 'MEMBER' },
    ]);
    const asInvitee = { orgId: admin.orgId, token: session.body.token };
    expect((await api('GET', `/api/v1/app/${admin.orgId}/list`, { token: asInvitee.token })).status).toBe(200);
    expect(
      (await api('POST', `/api/v1/org/${admin.orgId}/app`, { token: asInvitee.token, body: { name: 'x' } })).status,
    ).toBe(401);

    // Used once: a second acceptance is refused, and the invitation is no longer pending.
    const again = await accept({ token });
    expect(again.status).toBe(404);
    expect(again.body.message).toMatch(/already used or revoked/);
    expect((await pending(admin)).body.invitations).toEqual([]);
    const types = await auditTypes(admin);
    expect(types).toContain('INVITE_USER');
    expect(types).toContain('USER_JOINED_ORG');
  });

  it('an existing user joins signed in as themselves, with their own keys: no key is issued', async () => {
    const admin = await createTenant();
    const elsewhere = await createTenant();
    const other = await api('GET', '/api/v1/user', { token: elsewhere.token });
    const address = other.body.user.external.email as string;
    const created = await invite(admin, { email: address.toUpperCase(), permissions: ['read:application'] });
    expect(created.status, created.text).toBe(200);
    expect(created.body.invitation.roleName).toBe('CUSTOM');
    const accepted = await acceptSignedIn(elsewhere.token, { token: created.body.token });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({ userCreated: false, apiKey: '', member: { userId: elsewhere.userId } });
    // Their existing session reaches the new organization at once.
    expect((await api('GET', `/api/v1/app/${admin.orgId}/list`, { token: elsewhere.token })).status).toBe(200);
    expect(await auditTypes(admin)).toContain('USER_JOINED_ORG');
    // Used once; inviting a member again: 409.
    expect((await acceptSignedIn(elsewhere.token, { token: created.body.token })).status).toBe(404);
    const twice = await invite(admin, { email: address });
    expect(twice.status).toBe(409);
    expect(twice.body.message).toMatch(/already a member/);
  });

  it("an inviter cannot attach another organization's user: acceptance takes the invited user's own credentials", async () => {
    // The attack: E's owner invites a user of V and accepts the invitation themselves.
    const attacker = await createTenant(); // organization E
    const victim = await createTenant(); // a user of organization V
    const victimEmail = (await api('GET', '/api/v1/user', { token: victim.token })).body.user.external.email;
    const created = await invite(attacker, { email: victimEmail, role: 'READ_ONLY' });
    expect(created.status, created.text).toBe(200);
    const { token } = created.body;

    // Without credentials, the link makes new accounts only: the existing one is not attached, the invitation kept.
    const anonymous = await accept({ token });
    expect(anonymous.status, anonymous.text).toBe(401);
    expect(anonymous.body.message).toMatch(/already has an account: sign in with it/);
    // With the inviter's own session: not their address.
    const asInviter = await acceptSignedIn(attacker.token, { token });
    expect(asInviter.status, asInviter.text).toBe(403);
    expect(asInviter.body.message).toMatch(/for another e-mail address/);
    // A narrowed key of the invited user cannot join organizations either.
    const narrowed = await api('POST', '/api/v1/user/keys', {
      token: victim.token,
      body: { name: 'CI', permissions: ['read:application'] },
    });
    const narrowedSession = await login(narrowed.body.apiKey);
    expect((await acceptSignedIn(narrowedSession.body.token, { token })).status).toBe(401);
    expect(await memberIds(attacker)).toEqual([attacker.userId]);
    expect((await api('GET', `/api/v1/app/${attacker.orgId}/list`, { token: victim.token })).status).toBe(401);
    expect((await pending(attacker)).body.invitations).toHaveLength(1);

    // The invited user, signed in with their own key, accepts it.
    const joined = await acceptSignedIn(victim.token, { token });
    expect(joined.status, joined.text).toBe(200);
    expect(joined.body).toMatchObject({ organizationId: attacker.orgId, member: { userId: victim.userId } });
    expect((await memberIds(attacker)).sort()).toEqual([attacker.userId, victim.userId].sort());
  });

  it('an expired or revoked invitation is refused', async () => {
    const admin = await createTenant();
    const short = await invite(admin, { email: email(), expiresAt: Date.now() + 60_000 });
    expect(short.status, short.text).toBe(200);
    // Expire it without waiting: its validity moved into the past, as time would.
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.invitationById(short.body.invitation.id),
        UpdateExpression: 'SET validUntil = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1000 },
      }),
    );
    const expired = await accept({ token: short.body.token });
    expect(expired.status).toBe(410);
    expect(expired.body.message).toMatch(/expired at .*ask for a new one/);
    expect((await pending(admin)).body.invitations).toEqual([]);

    const revocable = await invite(admin, { email: email(), role: 'SCANNER' });
    expect((await revoke(admin, revocable.body.invitation.id)).status).toBe(200);
    expect((await accept({ token: revocable.body.token })).status).toBe(404);
    expect((await revoke(admin, revocable.body.invitation.id)).status).toBe(404);
    expect(await auditTypes(admin)).toContain('USER_INVITE_REVOKED');

    // A token with the right id and a wrong secret is refused the same way, and leaves the invitation usable.
    const kept = await invite(admin, { email: email() });
    const forged = `${kept.body.invitation.id}.${'A'.repeat(43)}`;
    expect((await accept({ token: forged })).status).toBe(404);
    expect((await accept({ token: kept.body.token })).status).toBe(200);
  });

  it('refuses escalation: a manager invites only within what they hold; only owners invite owners', async () => {
    const admin = await createTenant(); // ADMIN
    const { userId: ownerId } = await createUser({ email: email() });
    await addMember({ organizationId: admin.orgId, userId: ownerId, role: 'OWNER' });
    const owner = await invite(admin, { email: email(), role: 'OWNER' });
    expect(owner.status).toBe(403);
    expect(owner.body.message).toMatch(/only an owner can make an owner/);
    const manager = await addUserTo(admin.orgId, ['read:member', 'write:member', 'read:application']);
    const asManager = { orgId: admin.orgId, token: manager.token };
    const beyond = await invite(asManager, { email: email(), role: 'MEMBER' });
    expect(beyond.status).toBe(403);
    expect(beyond.body.message).toMatch(/cannot grant permissions you do not hold/);
    expect((await invite(asManager, { email: email(), permissions: ['read:application'] })).status).toBe(200);
  });

  it('answers 400 naming bad input, and creates nothing', async () => {
    const admin = await createTenant();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /body.email/],
      [{ email: 'not an address' }, /body.email: must be an e-mail address/],
      [{ email: email(), role: 'KING' }, /body.role: must be one of/],
      [{ email: email(), role: 'MEMBER', permissions: ['read:scan'] }, /either role/],
      [{ email: email(), expiresAt: '2001-01-01T00:00:00Z' }, /body.expiresAt: must be in the future/],
      [{ email: email(), expiresAt: Date.now() + 40 * 86_400_000 }, /body.expiresAt: must be within 30 days/],
    ];
    for (const [body, message] of cases) {
      const out = await invite(admin, body);
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toMatch(message);
    }
    expect((await pending(admin)).body.invitations).toEqual([]);
    for (const body of [{}, { token: 'nope' }, { token: `${randomUUID()}.short` }]) {
      const out = await accept(body);
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toMatch(/body.token/);
    }
    expect((await accept({ token: `${randomUUID()}.${'B'.repeat(43)}` })).status).toBe(404);
  });

  it('permissions and tenant isolation: write:member; another organization never sees or revokes them', async () => {
    const admin = await createTenant();
    const reader = await addUserTo(admin.orgId, ['read:member', 'read:application']);
    const asReader = { orgId: admin.orgId, token: reader.token };
    const created = await invite(admin, { email: email() });
    expect((await invite(asReader, { email: email() })).status).toBe(401);
    expect((await pending(asReader)).status).toBe(401);
    expect((await revoke(asReader, created.body.invitation.id)).status).toBe(401);

    const other = await createTenant();
    expect((await pending({ orgId: admin.orgId, token: other.token })).status).toBe(401);
    // Addressed through the other organization: unknown there.
    const foreign = await revoke(other, created.body.invitation.id);
    expect(foreign.status).toBe(404);
    expect((await pending(other)).body.invitations).toEqual([]);
    expect((await pending(admin)).body.invitations).toHaveLength(1);
    // A user created by hand with an invited address joins signed in (the e-mail names the user).
    const address = email();
    const later = await invite(admin, { email: address });
    const { userId } = await createUser({ email: address });
    const { apiKey } = await createApiKey({ userId });
    await addMember({ organizationId: other.orgId, userId });
    const joined = await acceptSignedIn((await login(apiKey)).body.token, { token: later.body.token });
    expect(joined.body).toMatchObject({ userCreated: false, member: { userId } });
  });
});
