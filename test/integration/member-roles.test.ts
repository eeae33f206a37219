import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { auditTypes, joinTeams } from './app-helpers.ts';
import { addMember, createApiKey, createUser } from '../../shared/identity/admin.ts';
import { getTeam } from '../../shared/applications/team-repository.ts';
import { permissionsOfRole, type Role } from '../../shared/context/roles.ts';
import type { Permission } from '../../shared/context/permissions.ts';
import { randomUUID } from 'node:crypto';

// Members and roles (docs/IDENTITY.md "Members and roles"): listMemberRoles, updateMember, removeMember.

const login = (apiKey: string) => api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': apiKey } });
const refresh = (token: string) => api('GET', '/api/v1/auth/refresh-token', { token });
const update = (tenant: Pick<Tenant, 'orgId' | 'token'>, userId: string, body: Record<string, unknown>) =>
  api('PUT', `/api/v1/org/${tenant.orgId}/members/${userId}`, { token: tenant.token, body });
const remove = (tenant: Pick<Tenant, 'orgId' | 'token'>, userId: string) =>
  api('DELETE', `/api/v1/org/${tenant.orgId}/members/${userId}`, { token: tenant.token });
const roles = (tenant: Pick<Tenant, 'orgId' | 'token'>) =>
  api('GET', `/api/v1/org/${tenant.orgId}/roles`, { token: tenant.token, query: { pageSize: 100 } });
const apps = (tenant: Pick<Tenant, 'orgId' | 'token'>) =>
  api('GET', `/api/v1/app/${tenant.orgId}/list`, { token: tenant.token });
const createApp = (tenant: Pick<Tenant, 'orgId' | 'token'>) =>
  api('POST', `/api/v1/org/${tenant.orgId}/app`, {
    token: tenant.token,
    body: { name: `app ${randomUUID()}`, env: 'dev' },
  });

/** Another member of the organization with this public role (all permissions unless given), signed in. */
async function join(orgId: string, role: Role, permissions?: Permission[]): Promise<Tenant> {
  const { userId } = await createUser({ email: `${randomUUID()}@example.test`, fullName: `A ${role}` });
  await addMember({ organizationId: orgId, userId, role, permissions });
  const { apiKey } = await createApiKey({ userId });
  return { orgId, userId, apiKey, token: (await login(apiKey)).body.token };
}

describe('member roles', () => {
  it('changes a member through named roles and custom sets; each applies to their next request, audited', async () => {
    const admin = await createTenant();
    const member = await addUserTo(admin.orgId, permissionsOfRole('MEMBER'));
    const asMember = { orgId: admin.orgId, token: member.token };
    expect((await createApp(asMember)).status).toBe(200);

    const readOnly = await update(admin, member.userId, { role: 'READ_ONLY' });
    expect(readOnly.status, readOnly.text).toBe(200);
    expect(readOnly.body.member).toMatchObject({
      userId: member.userId,
      role: 'MEMBER',
      roleName: 'READ_ONLY',
      permissions: permissionsOfRole('READ_ONLY'),
    });
    // Narrowed: the same token is refused a write at once, and still reads.
    expect((await createApp(asMember)).status).toBe(401);
    expect((await apps(asMember)).status).toBe(200);
    // The public answers keep the public role.
    const listed = await api('GET', `/api/v1/org/${admin.orgId}/members`, {
      token: admin.token,
      query: { pageSize: 100 },
    });
    const external = listed.body.users.find((u: { external: { id: string } }) => u.external.id === member.userId);
    expect(external.external.organizations[0].role).toBe('MEMBER');

    const custom = await update(admin, member.userId, { permissions: ['read:scan', 'read:application', 'read:scan'] });
    expect(custom.body.member).toMatchObject({ roleName: 'CUSTOM', permissions: ['read:application', 'read:scan'] });
    // A custom set equal to a named role takes its name.
    const scanner = await update(admin, member.userId, { permissions: [...permissionsOfRole('SCANNER')].reverse() });
    expect(scanner.body.member.roleName).toBe('SCANNER');
    const back = await update(admin, member.userId, { role: 'MEMBER' });
    expect(back.body.member.roleName).toBe('MEMBER');
    expect((await createApp(asMember)).status).toBe(200);

    const catalogue = await roles(admin);
    expect(catalogue.status).toBe(200);
    expect(catalogue.body.roles.map((r: { name: string }) => r.name)).toEqual([
      'OWNER',
      'ADMIN',
      'MEMBER',
      'READ_ONLY',
      'SCANNER',
    ]);
    expect(catalogue.body.roles.find((r: { name: string }) => r.name === 'SCANNER').role).toBe('MEMBER');
    const mine = catalogue.body.members.find((m: { userId: string }) => m.userId === member.userId);
    expect(mine).toMatchObject({ roleName: 'MEMBER', role: 'MEMBER' });
    expect(catalogue.body.members.find((m: { userId: string }) => m.userId === admin.userId).roleName).toBe('ADMIN');

    expect((await auditTypes(admin)).filter((t) => t === 'USER_MODIFIED')).toHaveLength(4);
  });

  it('removal: the next request and refresh are refused, the teams let go, audited', async () => {
    const admin = await createTenant();
    const member = await addUserTo(admin.orgId, permissionsOfRole('MEMBER'));
    const teamId = randomUUID();
    await joinTeams(admin.orgId, member.userId, [teamId]);
    expect((await apps({ orgId: admin.orgId, token: member.token })).status).toBe(200);

    const removed = await remove(admin, member.userId);
    expect(removed.status, removed.text).toBe(200);
    expect((await apps({ orgId: admin.orgId, token: member.token })).status).toBe(401);
    expect((await refresh(member.token)).status).toBe(401);
    expect((await login(member.apiKey)).status).toBe(401);
    expect((await getTeam(admin.orgId, teamId))?.userIds).toEqual([]);
    expect((await roles(admin)).body.members.map((m: { userId: string }) => m.userId)).toEqual([admin.userId]);
    expect(await auditTypes(admin)).toContain('REMOVE_USER');
    // Gone: a second removal is 404.
    expect((await remove(admin, member.userId)).status).toBe(404);
  });

  it('keeps an owner: the last owner cannot leave or be demoted; only owners make or change owners', async () => {
    const admin = await createTenant(); // ADMIN
    const owner = await join(admin.orgId, 'OWNER');

    const leave = await remove(owner, owner.userId);
    expect(leave.status).toBe(409);
    expect(leave.body.message).toMatch(/last owner/);
    const demote = await update(owner, owner.userId, { role: 'ADMIN' });
    expect(demote.status).toBe(409);
    expect(demote.body.message).toMatch(/last owner/);

    // An admin cannot touch an owner, nor make one.
    const byAdmin = await remove(admin, owner.userId);
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.message).toMatch(/only an owner/);
    expect((await update(admin, owner.userId, { role: 'MEMBER' })).status).toBe(403);
    const promote = await update(admin, admin.userId, { role: 'OWNER' });
    expect(promote.status).toBe(403);
    expect(promote.body.message).toMatch(/only an owner can make an owner/);

    // With a second owner, one may step down; the one left may not.
    expect((await update(owner, admin.userId, { role: 'OWNER' })).status).toBe(200);
    expect((await update(owner, owner.userId, { role: 'MEMBER' })).status).toBe(200);
    expect((await remove(admin, admin.userId)).status).toBe(409);
    const catalogue = await roles(admin);
    expect(catalogue.body.members.filter((m: { role: string }) => m.role === 'OWNER')).toHaveLength(1);
  });

  it('in an organization without owners (made before roles were named), its admins act as owners', async () => {
    const admin = await createTenant(); // ADMIN, and no owner
    const other = await addUserTo(admin.orgId); // ADMIN
    expect((await remove(admin, other.userId)).status).toBe(200);
    const last = await remove(admin, admin.userId);
    expect(last.status).toBe(409);
    expect(last.body.message).toMatch(/last owner/);
    expect((await update(admin, admin.userId, { role: 'MEMBER' })).status).toBe(409);
    // The admin may make an owner; from then on, owners rule.
    const next = await addUserTo(admin.orgId);
    expect((await update(admin, next.userId, { role: 'OWNER' })).status).toBe(200);
    expect((await update(admin, next.userId, { role: 'ADMIN' })).status).toBe(403);
    expect((await remove(admin, admin.userId)).status).toBe(200);
  });

  it('two owners demoting each other at once leave one owner', async () => {
    for (let round = 0; round < 3; round++) {
      const first = await createTenant();
      const a = await join(first.orgId, 'OWNER');
      const b = await join(first.orgId, 'OWNER');
      const answers = await Promise.all([
        update(a, b.userId, { role: 'ADMIN' }),
        update(b, a.userId, { role: 'ADMIN' }),
        update(a, a.userId, { role: 'ADMIN' }),
        update(b, b.userId, { role: 'ADMIN' }),
      ]);
      for (const answer of answers) expect([200, 401, 403, 409], answer.text).toContain(answer.status);
      const owners = (await roles(first)).body.members.filter((m: { role: string }) => m.role === 'OWNER');
      expect(owners, `round ${round}`).toHaveLength(1);
    }
  });

  it('refuses privilege escalation: a manager grants only what they hold', async () => {
    const admin = await createTenant();
    // A manager of members with fewer permissions than an admin.
    const manager = await addUserTo(admin.orgId, ['read:member', 'write:member', 'read:application', 'read:scan']);
    const asManager = { orgId: admin.orgId, token: manager.token };
    const member = await addUserTo(admin.orgId, ['read:application']);

    const beyond = await update(asManager, member.userId, { role: 'MEMBER' });
    expect(beyond.status).toBe(403);
    expect(beyond.body.message).toMatch(/cannot grant permissions you do not hold \(.*write:application/);
    expect((await update(asManager, member.userId, { permissions: ['read:application', 'read:scan'] })).status).toBe(
      200,
    );
    // Not on themselves either, nor on a member who holds more than they do.
    expect((await update(asManager, manager.userId, { role: 'ADMIN' })).status).toBe(403);
    const worker = await addUserTo(admin.orgId, permissionsOfRole('MEMBER'));
    const wider = await remove(asManager, worker.userId);
    expect(wider.status).toBe(403);
    expect(wider.body.message).toMatch(/holds permissions you do not/);
    // A narrowed key holds only its narrowing.
    const narrowed = await api('POST', '/api/v1/user/keys', {
      token: admin.token,
      body: { name: 'members only', permissions: ['read:member', 'write:member'] },
    });
    const narrowedToken = (await login(narrowed.body.apiKey)).body.token;
    const viaNarrowed = await update({ orgId: admin.orgId, token: narrowedToken }, member.userId, {
      role: 'READ_ONLY',
    });
    expect(viaNarrowed.status).toBe(403);
  });

  it('answers 400 naming bad input, and changes nothing', async () => {
    const admin = await createTenant();
    const member = await addUserTo(admin.orgId, ['read:application']);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /either role .* or permissions/],
      [{ role: 'MEMBER', permissions: ['read:scan'] }, /either role/],
      [{ role: 'KING' }, /body.role: must be one of OWNER, ADMIN, MEMBER, READ_ONLY, SCANNER/],
      [{ permissions: [] }, /body.permissions: must name at least one permission/],
      [{ permissions: ['write:everything'] }, /body.permissions.0: must be permission names/],
    ];
    for (const [body, message] of cases) {
      const out = await update(admin, member.userId, body);
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toMatch(message);
    }
    expect(
      (
        await api('PUT', `/api/v1/org/${admin.orgId}/members/not-a-uuid`, {
          token: admin.token,
          body: { role: 'MEMBER' },
        })
      ).status,
    ).toBe(400);
    const unchanged = (await roles(admin)).body.members.find((m: { userId: string }) => m.userId === member.userId);
    expect(unchanged.permissions).toEqual(['read:application']);
  });

  it('permissions and tenant isolation: write:member to change, read:member to list; never another organization', async () => {
    const admin = await createTenant();
    const reader = await addUserTo(admin.orgId, ['read:member', 'read:application']);
    const asReader = { orgId: admin.orgId, token: reader.token };
    const member = await addUserTo(admin.orgId, ['read:application']);
    expect((await roles(asReader)).status).toBe(200);
    expect((await update(asReader, member.userId, { role: 'READ_ONLY' })).status).toBe(401);
    expect((await remove(asReader, member.userId)).status).toBe(401);
    const outsider = await addUserTo(admin.orgId, ['read:application']);
    expect((await roles({ orgId: admin.orgId, token: outsider.token })).status).toBe(401);

    const other = await createTenant();
    // Another organization's member: 404, as a user who does not exist.
    const foreign = await update(admin, other.userId, { role: 'READ_ONLY' });
    expect(foreign.status).toBe(404);
    expect((await remove(admin, other.userId)).status).toBe(404);
    expect((await update(admin, randomUUID(), { role: 'READ_ONLY' })).body.message).toEqual(
      expect.stringMatching(/not found/),
    );
    // From outside the organization: 401, nothing said; and the outsider's own organization does not know them.
    const intruder = { orgId: admin.orgId, token: other.token };
    expect((await update(intruder, member.userId, { role: 'READ_ONLY' })).status).toBe(401);
    expect((await remove(intruder, member.userId)).status).toBe(401);
    expect((await roles(intruder)).status).toBe(401);
    expect((await update(other, member.userId, { role: 'READ_ONLY' })).status).toBe(404);
    expect((await roles(other)).body.members.map((m: { userId: string }) => m.userId)).toEqual([other.userId]);
    expect((await apps({ orgId: other.orgId, token: other.token })).status).toBe(200);
  });
});
