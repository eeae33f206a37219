import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { api } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';
import { joinTeams } from './app-helpers.ts';
import { addMember, createUser } from '../../shared/identity/admin.ts';

// GET /api/v1/org/{orgId}/members

describe('list members', () => {
  it('lists the members with their role and teams, filters by pattern and roles, sorts and pages', async () => {
    const tenant = await createTenant(); // an ADMIN with every permission
    const stamp = randomUUID().slice(0, 8);
    const people = [
      { fullName: 'Ann Owner', email: `ann.${stamp}@acme.test`, role: 'OWNER' as const },
      { fullName: 'Bob Member', email: `bob.${stamp}@acme.test`, role: 'MEMBER' as const },
      { fullName: 'Carla Member', email: `carla.${stamp}@Carla-Co.test`, role: 'MEMBER' as const },
    ];
    const ids: Record<string, string> = {};
    for (const person of people) {
      const { userId } = await createUser({ email: person.email, fullName: person.fullName });
      await addMember({ organizationId: tenant.orgId, userId, permissions: ['read:application'], role: person.role });
      ids[person.fullName] = userId;
    }
    const teamId = randomUUID();
    await joinTeams(tenant.orgId, ids['Bob Member'], [teamId]);
    const members = (query: Record<string, string | number> = {}) =>
      api('GET', `/api/v1/org/${tenant.orgId}/members`, { token: tenant.token, query });

    const all = await members({ pageSize: 100 });
    expect(all.status).toBe(200);
    expect(all.body.totalCount).toBe('4');
    const sortedIds = [tenant.userId, ...Object.values(ids)].sort();
    expect(all.body.users.map((u: { external: { id: string } }) => u.external.id)).toEqual(sortedIds);
    const bob = all.body.users.find((u: { external: { id: string } }) => u.external.id === ids['Bob Member']);
    expect(bob.external).toMatchObject({
      email: people[1].email,
      fullName: 'Bob Member',
      firstName: 'Bob',
      lastName: 'Member',
      organizations: [{ organization: { id: tenant.orgId }, role: 'MEMBER' }],
      teams: [{ id: teamId, organizationId: tenant.orgId }],
    });
    const desc = await members({ pageSize: 100, sortField: 'id', sortDir: 'DESC' });
    expect(desc.body.users.map((u: { external: { id: string } }) => u.external.id)).toEqual([...sortedIds].reverse());

    const names = async (query: Record<string, string | number>) =>
      (await members(query)).body.users.map((u: { external: { fullName: string } }) => u.external.fullName).sort();
    expect(await names({ pattern: 'MEMBER' })).toEqual(['Bob Member', 'Carla Member']);
    expect(await names({ pattern: 'carla-CO.test' })).toEqual(['Carla Member']);
    expect(await names({ pattern: '.*' })).toEqual([]); // plain text, not a pattern language
    expect(await names({ roles: 'OWNER' })).toEqual(['Ann Owner']);
    expect(await names({ roles: 'OWNER,ADMIN' })).toEqual(['Ann Owner', 'Test User']);
    expect(await names({ roles: 'MEMBER', pattern: 'carla' })).toEqual(['Carla Member']);

    const first = await members({ pageSize: 3 });
    expect(first.body).toMatchObject({ totalCount: '4', nextPageToken: '1' });
    const second = await members({ pageSize: 3, pageToken: 1 });
    expect(second.body.nextPageToken).toBe('5'); // past the end: totalCount + 1
    expect([...first.body.users, ...second.body.users].map((u: { external: { id: string } }) => u.external.id)).toEqual(
      sortedIds,
    );

    for (const query of [
      { roles: 'KING' },
      { sortField: 'name' },
      { pageSize: 0 },
      { pattern: 'x'.repeat(300) },
    ] as Record<string, string | number>[]) {
      expect((await members(query)).status, JSON.stringify(query)).toBe(400);
    }
  });

  it('needs read:member and membership of the organization', async () => {
    const tenant = await createTenant();
    const reader = await addUserTo(tenant.orgId, ['read:application']);
    expect((await api('GET', `/api/v1/org/${tenant.orgId}/members`, { token: reader.token })).status).toBe(401);
    const stranger = await createTenant();
    expect((await api('GET', `/api/v1/org/${tenant.orgId}/members`, { token: stranger.token })).status).toBe(401);
  });
});
