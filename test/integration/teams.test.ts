import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { api } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';
import { auditTypes } from './app-helpers.ts';
import {
  appIdsOf,
  canReadApp,
  myTeamIds,
  newApp,
  newTeam,
  putTeam,
  readTeam,
  teamOwningApp,
  userIdsOf,
} from './team-helpers.ts';
import { addMember, createUser } from '../../shared/identity/admin.ts';

const teamPath = (orgId: string, teamId: string) => `/api/v1/org/${orgId}/team/${teamId}`;

describe('team operations (docs/API.md, Teams)', () => {
  it('creates, reads, replaces and deletes a team in the public shapes, each with its audit entry', async () => {
    const owner = await createTenant();
    const member = await addUserTo(owner.orgId);
    const appA = await newApp(owner.orgId, owner.token, 'Alpha', 'dev');
    const appB = await newApp(owner.orgId, owner.token, 'Beta');

    const created = await api('POST', `/api/v1/org/${owner.orgId}/team`, {
      token: owner.token,
      body: {
        name: ' Blue ',
        organizationId: owner.orgId,
        userIds: [member.userId.toUpperCase()],
        applicationIds: [appA, appA],
      },
    });
    expect(created.status, created.text).toBe(200);
    const team = created.body.team;
    expect(team).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Blue',
      organizationId: owner.orgId,
      users: [
        {
          userId: member.userId,
          userName: 'Test User',
          email: expect.stringContaining('@example.test'),
          role: 'ADMIN',
        },
      ],
      applications: [{ applicationId: appA, applicationName: 'Alpha', environments: ['dev'], lastScanTimestamp: '0' }],
    });
    expect(await readTeam(owner.orgId, owner.token, team.id)).toEqual(team);

    // Replace-all: the body is the whole new state.
    const updated = await putTeam(owner.orgId, owner.token, team.id, {
      name: 'Blue 2',
      userIds: [member.userId, owner.userId],
      applicationIds: [appB],
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.team).toMatchObject({ id: team.id, name: 'Blue 2', organizationId: owner.orgId });
    expect(userIdsOf(updated.body.team)).toEqual([member.userId, owner.userId].sort());
    expect(appIdsOf(updated.body.team)).toEqual([appB]);
    expect(await readTeam(owner.orgId, owner.token, team.id)).toEqual(updated.body.team);
    // Alpha left the team: visible to the whole organization again; Beta is the team's.
    const outsider = await addUserTo(owner.orgId);
    expect(await canReadApp(outsider.token, appA)).toBe(true);
    expect(await canReadApp(outsider.token, appB)).toBe(false);

    const emptied = await putTeam(owner.orgId, owner.token, team.id, { name: 'Blue 2' });
    expect(emptied.status).toBe(200);
    expect(emptied.body.team).toMatchObject({ users: [], applications: [] });
    expect(await myTeamIds(owner.orgId, member)).toEqual([]);
    expect(await canReadApp(outsider.token, appB)).toBe(true);

    const audit = await api('GET', `/api/v1/org/${owner.orgId}/audit`, {
      token: owner.token,
      query: { types: 'TEAM_ADDED,TEAM_UPDATED' },
    });
    expect(audit.body.auditRecords.map((r: { userActivityType: string }) => r.userActivityType)).toEqual([
      'TEAM_ADDED',
      'TEAM_UPDATED',
      'TEAM_UPDATED',
    ]);
    expect(JSON.parse(audit.body.auditRecords[1].payload)).toMatchObject({
      teamId: team.id,
      teamName: 'Blue 2',
      previousTeamName: 'Blue',
      addedUserIds: [owner.userId],
      removedUserIds: [],
      addedApplicationIds: [appB],
      removedApplicationIds: [appA],
    });

    const deleted = await api('DELETE', teamPath(owner.orgId, team.id), { token: owner.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await api('GET', teamPath(owner.orgId, team.id), { token: owner.token })).status).toBe(404);
    expect((await api('DELETE', teamPath(owner.orgId, team.id), { token: owner.token })).status).toBe(404);
    expect((await putTeam(owner.orgId, owner.token, team.id, { name: 'x' })).status).toBe(404);
    expect((await auditTypes(owner)).filter((t) => t.startsWith('TEAM_'))).toEqual([
      'TEAM_ADDED',
      'TEAM_UPDATED',
      'TEAM_UPDATED',
      'TEAM_DELETED',
    ]);
    // The name is free again.
    expect((await newTeam(owner.orgId, owner.token, { name: 'blue 2' })).name).toBe('blue 2');
  });

  it('deleting a team leaves its applications without a team, visible to the whole organization, and deletes nothing else', async () => {
    const { owner, member, outsider, team, app } = await teamOwningApp('Red');
    expect(await canReadApp(outsider.token, app)).toBe(false);
    const apps = async (token: string) => (await api('GET', `/api/v2/org/${owner.orgId}/apps`, { token })).body;
    expect((await apps(outsider.token)).totalCount).toBe('0');

    expect((await api('DELETE', teamPath(owner.orgId, team.id), { token: owner.token })).status).toBe(200);
    expect(await canReadApp(outsider.token, app)).toBe(true);
    expect(await canReadApp(member.token, app)).toBe(true);
    expect((await apps(outsider.token)).totalCount).toBe('1');
    expect((await api('GET', `/api/v1/app/${app}/env/list`, { token: outsider.token })).body.environments).toHaveLength(
      1,
    );
    expect(await myTeamIds(owner.orgId, member)).toEqual([]);
    // The member is still a member of the organization.
    expect((await api('GET', `/api/v2/org/${owner.orgId}/apps`, { token: member.token })).status).toBe(200);
    const user = await api('GET', '/api/v1/user', { token: member.token });
    expect(user.body.user.external.teams).toEqual([]);
  });

  it('refuses invalid input with 400 naming it, changing nothing', async () => {
    const owner = await createTenant();
    const other = await createTenant();
    const member = await addUserTo(owner.orgId);
    const app = await newApp(owner.orgId, owner.token, 'mine');
    const foreignApp = await newApp(other.orgId, other.token, 'theirs');
    const team = await newTeam(owner.orgId, owner.token, {
      name: 'Green',
      userIds: [member.userId],
      applicationIds: [app],
    });
    await newTeam(owner.orgId, owner.token, { name: 'Taken' });
    const before = await auditTypes(owner);

    const createCases: [Record<string, unknown>, string][] = [
      [{}, 'body.name'],
      [{ name: '' }, 'body.name'],
      [{ name: '   ' }, 'body.name'],
      [{ name: 'x'.repeat(256) }, 'body.name'],
      [{ name: 'TAKEN' }, 'already has a team named'],
      [{ name: 'n', userIds: ['nope'] }, 'body.userIds.0'],
      [{ name: 'n', userIds: [randomUUID()] }, 'userIds'],
      [{ name: 'n', userIds: [other.userId] }, other.userId],
      [{ name: 'n', applicationIds: [randomUUID()] }, 'applicationIds'],
      [{ name: 'n', applicationIds: [foreignApp] }, foreignApp],
      [{ name: 'n', applicationIds: 'x' }, 'body.applicationIds'],
      [{ name: 'n', organizationId: other.orgId }, 'organizationId'],
    ];
    for (const [body, expected] of createCases) {
      const out = await api('POST', `/api/v1/org/${owner.orgId}/team`, { token: owner.token, body });
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toContain(expected);
    }
    const updateCases: [Record<string, unknown>, string][] = [
      [{ userIds: [member.userId] }, 'body.name'],
      [{ name: ' ' }, 'body.name'],
      [{ name: 'taken' }, 'already has a team named'],
      [{ name: 'Green', teamId: randomUUID() }, 'teamId'],
      [{ name: 'Green', organizationId: other.orgId }, 'organizationId'],
      [{ name: 'Green', userIds: [other.userId] }, 'userIds'],
      [{ name: 'Green', applicationIds: [app, foreignApp] }, 'applicationIds'],
    ];
    for (const [body, expected] of updateCases) {
      const out = await api('PUT', teamPath(owner.orgId, team.id), { token: owner.token, body });
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toContain(expected);
    }
    expect(
      (await api('PUT', teamPath(owner.orgId, 'not-a-uuid'), { token: owner.token, body: { name: 'x' } })).status,
    ).toBe(400);
    expect((await api('GET', teamPath(owner.orgId, randomUUID()), { token: owner.token })).status).toBe(404);
    expect(await readTeam(owner.orgId, owner.token, team.id)).toEqual(team);
    expect(await auditTypes(owner)).toEqual(before);
    // A case-only rename keeps the name's claim.
    expect(
      (
        await putTeam(owner.orgId, owner.token, team.id, {
          name: 'GREEN',
          userIds: [member.userId],
          applicationIds: [app],
        })
      ).status,
    ).toBe(200);
  });

  it("lists the organization's teams by name with paging and a name pattern, and the caller's own teams", async () => {
    const owner = await createTenant();
    const member = await addUserTo(owner.orgId, ['read:team']);
    const names = ['frontend', 'Backend', 'data', 'Front Office', 'ops'];
    const teams = new Map<string, string>();
    for (const name of names) {
      const team = await newTeam(owner.orgId, owner.token, {
        name,
        userIds: name.startsWith('f') || name.startsWith('F') ? [member.userId] : [],
      });
      teams.set(name, team.id);
    }
    const list = (query: Record<string, string | number>, token = member.token) =>
      api('GET', `/api/v1/org/${owner.orgId}/teams`, { token, query });
    const first = await list({ pageSize: 2 });
    expect(first.status).toBe(200);
    expect(first.body.teams.map((t: { name: string }) => t.name)).toEqual(['Backend', 'data']);
    expect(first.body).toMatchObject({ nextPageToken: '1', totalCount: '5' });
    const last = await list({ pageSize: 2, pageToken: 2 });
    expect(last.body.teams.map((t: { name: string }) => t.name)).toEqual(['ops']);
    expect(last.body.nextPageToken).toBe('6'); // past the end: totalCount + 1 (docs/COMPATIBILITY.md "Paging")
    expect((await list({ search: 'FRONT' })).body.teams.map((t: { name: string }) => t.name)).toEqual([
      'Front Office',
      'frontend',
    ]);
    expect((await list({ search: 'f*e' })).body.teams.map((t: { name: string }) => t.name)).toEqual([
      'Front Office',
      'frontend',
    ]);
    expect((await list({ search: 'a.a' })).body.totalCount).toBe('0');
    expect((await list({ pageSize: 0 })).status).toBe(400);

    const mine = await api('GET', `/api/v1/org/${owner.orgId}/user/${member.userId}/teams`, {
      token: member.token,
      query: { pageSize: 1 },
    });
    expect(mine.status).toBe(200);
    expect(mine.body.teams.map((t: { name: string }) => t.name)).toEqual(['Front Office']);
    expect(mine.body).toMatchObject({ nextPageToken: '1', totalCount: '2' });
    expect(mine.body.teams[0].users.map((u: { userId: string }) => u.userId)).toEqual([member.userId]);
    // Only the calling user may be given as userId.
    expect(
      (await api('GET', `/api/v1/org/${owner.orgId}/user/${owner.userId}/teams`, { token: member.token })).status,
    ).toBe(401);
    expect(await myTeamIds(owner.orgId, owner)).toEqual([]);

    const user = await api('GET', '/api/v1/user', { token: member.token });
    expect(user.body.user.external.teams).toEqual([
      { id: teams.get('Front Office'), name: 'Front Office', organizationId: owner.orgId },
      { id: teams.get('frontend'), name: 'frontend', organizationId: owner.orgId },
    ]);
  });

  it('applies the permissions read:team, write:team and delete:team; any member may read teams', async () => {
    const owner = await createTenant();
    const team = await newTeam(owner.orgId, owner.token, { name: 'Perm' });
    const reader = await addUserTo(owner.orgId, ['read:team']);
    const writer = await addUserTo(owner.orgId, ['write:team']);
    const deleter = await addUserTo(owner.orgId, ['delete:team']);
    const nobody = await addUserTo(owner.orgId, ['read:application']);
    const create = (token: string) =>
      api('POST', `/api/v1/org/${owner.orgId}/team`, { token, body: { name: `t-${randomUUID()}` } });

    expect((await api('GET', teamPath(owner.orgId, team.id), { token: reader.token })).status).toBe(200);
    expect((await api('GET', `/api/v1/org/${owner.orgId}/teams`, { token: reader.token })).status).toBe(200);
    expect((await create(reader.token)).status).toBe(401);
    expect((await putTeam(owner.orgId, reader.token, team.id, { name: 'x' })).status).toBe(401);
    expect((await api('DELETE', teamPath(owner.orgId, team.id), { token: reader.token })).status).toBe(401);

    expect((await api('GET', teamPath(owner.orgId, team.id), { token: writer.token })).status).toBe(401);
    expect((await create(writer.token)).status).toBe(200);
    expect((await putTeam(owner.orgId, writer.token, team.id, { name: 'Perm 2' })).status).toBe(200);
    expect((await api('DELETE', teamPath(owner.orgId, team.id), { token: writer.token })).status).toBe(401);

    for (const user of [nobody, deleter]) {
      expect((await api('GET', teamPath(owner.orgId, team.id), { token: user.token })).status).toBe(401);
      expect(
        (await api('GET', `/api/v1/org/${owner.orgId}/user/${user.userId}/teams`, { token: user.token })).status,
      ).toBe(401);
    }
    expect((await api('DELETE', teamPath(owner.orgId, team.id), { token: deleter.token })).status).toBe(200);
    expect((await api('GET', teamPath(owner.orgId, team.id))).status).toBe(401);
  });

  it("isolates organizations: another organization's teams, users and applications are out of reach", async () => {
    const owner = await createTenant();
    const stranger = await createTenant();
    const app = await newApp(owner.orgId, owner.token, 'private');
    const team = await newTeam(owner.orgId, owner.token, {
      name: 'Secret',
      userIds: [owner.userId],
      applicationIds: [app],
    });

    // Through the owner's organization: the stranger is not a member.
    for (const [method, path, body] of [
      ['GET', teamPath(owner.orgId, team.id)],
      ['PUT', teamPath(owner.orgId, team.id), { name: 'x' }],
      ['DELETE', teamPath(owner.orgId, team.id)],
      ['PUT', `${teamPath(owner.orgId, team.id)}/application`, { applicationId: app }],
      ['POST', `/api/v1/org/${owner.orgId}/team`, { name: 'x' }],
      ['GET', `/api/v1/org/${owner.orgId}/teams`],
      ['GET', `/api/v1/org/${owner.orgId}/user/${stranger.userId}/teams`],
    ] as const) {
      expect((await api(method, path, { token: stranger.token, body })).status, `${method} ${path}`).toBe(401);
    }
    // Through its own organization: the team is not there.
    expect((await api('GET', teamPath(stranger.orgId, team.id), { token: stranger.token })).status).toBe(404);
    expect((await putTeam(stranger.orgId, stranger.token, team.id, { name: 'x' })).status).toBe(404);
    expect((await api('DELETE', teamPath(stranger.orgId, team.id), { token: stranger.token })).status).toBe(404);
    expect((await api('GET', `/api/v1/org/${stranger.orgId}/teams`, { token: stranger.token })).body.teams).toEqual([]);
    // Nor can its own team take the owner's users or applications.
    const theirs = await newTeam(stranger.orgId, stranger.token, { name: 'Theirs' });
    expect(
      (await putTeam(stranger.orgId, stranger.token, theirs.id, { name: 'Theirs', applicationIds: [app] })).status,
    ).toBe(400);
    expect(
      (await putTeam(stranger.orgId, stranger.token, theirs.id, { name: 'Theirs', userIds: [owner.userId] })).status,
    ).toBe(400);
    expect(await readTeam(owner.orgId, owner.token, team.id)).toEqual(team);
    expect(await auditTypes(stranger)).toEqual(['TEAM_ADDED']);
  });
});

describe('application ownership (docs/API.md, Team rules)', () => {
  it('an application created by a team member lands in the team; non-members of the owning team get no access', async () => {
    const { owner, member, outsider, team, app } = await teamOwningApp('Makers');

    const read = await readTeam(owner.orgId, owner.token, team.id);
    expect(read.applications).toEqual([
      { applicationId: app, applicationName: 'Makers app', environments: ['dev'], lastScanTimestamp: '0' },
    ]);
    expect(await canReadApp(member.token, app)).toBe(true);
    for (const token of [outsider.token, owner.token]) {
      expect(await canReadApp(token, app)).toBe(false);
      expect((await api('POST', `/api/v1/app/${app}`, { token, body: { name: 'x' } })).status).toBe(401);
      expect((await api('GET', `/api/v2/org/${owner.orgId}/apps`, { token })).body.applications).toEqual([]);
      expect((await api('GET', `/api/v2/org/${owner.orgId}/envs`, { token })).body.totalCount).toBe('0');
    }
    expect((await api('GET', `/api/v2/org/${owner.orgId}/apps`, { token: member.token })).body.totalCount).toBe('1');
    // A replace-all update built on a read that includes the new application keeps it.
    expect(
      appIdsOf(
        (
          await putTeam(owner.orgId, owner.token, team.id, {
            name: 'Makers',
            userIds: [member.userId],
            applicationIds: [app],
          })
        ).body.team,
      ),
    ).toEqual([app]);
  });

  it('moves an application between teams with a team update, atomically with both teams and every copy', async () => {
    const owner = await createTenant();
    const [alice, bob] = [await addUserTo(owner.orgId), await addUserTo(owner.orgId)];
    const teamA = await newTeam(owner.orgId, owner.token, { name: 'A', userIds: [alice.userId] });
    const teamB = await newTeam(owner.orgId, owner.token, { name: 'B', userIds: [bob.userId] });
    const app = await newApp(owner.orgId, alice.token, 'moving', 'dev');
    const stays = await newApp(owner.orgId, alice.token, 'staying');
    expect(await canReadApp(bob.token, app)).toBe(false);

    const moved = await putTeam(owner.orgId, owner.token, teamB.id, {
      name: 'B',
      userIds: [bob.userId],
      applicationIds: [app],
    });
    expect(moved.status, moved.text).toBe(200);
    expect(appIdsOf(moved.body.team)).toEqual([app]);
    expect(appIdsOf(await readTeam(owner.orgId, owner.token, teamA.id))).toEqual([stays]);
    expect(await canReadApp(bob.token, app)).toBe(true);
    expect(await canReadApp(alice.token, app)).toBe(false);
    // The per-team counters moved with it.
    const total = async (token: string) =>
      (await api('GET', `/api/v2/org/${owner.orgId}/apps`, { token, query: { pageSize: 1 } })).body.totalCount;
    expect(await total(alice.token)).toBe('1');
    expect(await total(bob.token)).toBe('1');
    const envTotal = async (token: string) =>
      (await api('GET', `/api/v2/org/${owner.orgId}/envs`, { token, query: { pageSize: 1 } })).body.totalCount;
    expect(await envTotal(alice.token)).toBe('0');
    expect(await envTotal(bob.token)).toBe('1');

    // A new team takes both applications, from both teams, in one request.
    const teamC = await newTeam(owner.orgId, owner.token, { name: 'C', applicationIds: [app, stays] });
    expect(appIdsOf(teamC)).toEqual([app, stays].sort());
    expect(appIdsOf(await readTeam(owner.orgId, owner.token, teamA.id))).toEqual([]);
    expect(appIdsOf(await readTeam(owner.orgId, owner.token, teamB.id))).toEqual([]);
    expect(await total(alice.token)).toBe('0');
  });

  it("update-application-team moves an application into the caller's team, for team members only", async () => {
    const owner = await createTenant();
    const [alice, bob] = [await addUserTo(owner.orgId), await addUserTo(owner.orgId)];
    const teamA = await newTeam(owner.orgId, owner.token, { name: 'A', userIds: [alice.userId] });
    const teamB = await newTeam(owner.orgId, owner.token, { name: 'B', userIds: [bob.userId] });
    const app = await newApp(owner.orgId, alice.token, 'claimed');
    const foreign = await createTenant();
    const foreignApp = await newApp(foreign.orgId, foreign.token, 'foreign');
    const path = `${teamPath(owner.orgId, teamB.id)}/application`;

    expect((await api('PUT', path, { token: alice.token, body: { applicationId: app } })).status).toBe(401);
    expect((await api('PUT', path, { token: owner.token, body: { applicationId: app } })).status).toBe(401);
    const before = await auditTypes(owner);
    for (const [body, expected] of [
      [{}, 'body.applicationId'],
      [{ applicationId: 'x' }, 'body.applicationId'],
      [{ applicationId: randomUUID() }, 'applicationId'],
      [{ applicationId: foreignApp }, foreignApp],
      [{ applicationId: app, teamId: teamA.id }, 'teamId'],
    ] as const) {
      const out = await api('PUT', path, { token: bob.token, body });
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toContain(expected);
    }
    expect(
      (
        await api('PUT', `${teamPath(owner.orgId, randomUUID())}/application`, {
          token: bob.token,
          body: { applicationId: app },
        })
      ).status,
    ).toBe(404);
    expect(await auditTypes(owner)).toEqual(before);

    const moved = await api('PUT', path, { token: bob.token, body: { applicationId: app, teamId: teamB.id } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toEqual({
      applicationTeam: { applicationId: app, organizationId: owner.orgId, teamId: teamB.id },
    });
    expect(appIdsOf(await readTeam(owner.orgId, owner.token, teamB.id))).toEqual([app]);
    expect(appIdsOf(await readTeam(owner.orgId, owner.token, teamA.id))).toEqual([]);
    expect(await canReadApp(bob.token, app)).toBe(true);
    expect(await canReadApp(alice.token, app)).toBe(false);
    const audit = await api('GET', `/api/v1/org/${owner.orgId}/audit`, {
      token: owner.token,
      query: { types: 'APPLICATION_MODIFIED' },
    });
    expect(audit.body.auditRecords).toHaveLength(1);
    expect(JSON.parse(audit.body.auditRecords[0].payload)).toEqual({
      applicationId: app,
      appName: 'claimed',
      teamId: teamB.id,
      previousTeamId: teamA.id,
    });
    // Already in the team: 200, nothing written.
    expect((await api('PUT', path, { token: bob.token, body: { applicationId: app } })).status).toBe(200);
    expect((await auditTypes(owner)).filter((t) => t === 'APPLICATION_MODIFIED')).toHaveLength(1);
  });
});

describe('team membership and tokens', () => {
  it('membership changes apply to the next request of an existing token, and to a refreshed one', async () => {
    const owner = await createTenant();
    const member = await addUserTo(owner.orgId);
    const team = await newTeam(owner.orgId, owner.token, { name: 'Live' });
    const app = await newApp(owner.orgId, owner.token, 'guarded');
    await putTeam(owner.orgId, owner.token, team.id, { name: 'Live', applicationIds: [app] });
    expect(await canReadApp(member.token, app)).toBe(false);

    await putTeam(owner.orgId, owner.token, team.id, { name: 'Live', userIds: [member.userId], applicationIds: [app] });
    expect(await canReadApp(member.token, app)).toBe(true);
    const refreshed = (await api('GET', '/api/v1/auth/refresh-token', { token: member.token })).body.token;
    expect(await canReadApp(refreshed, app)).toBe(true);
    expect((await api('GET', '/api/v1/user', { token: refreshed })).body.user.external.teams).toEqual([
      { id: team.id, name: 'Live', organizationId: owner.orgId },
    ]);

    await putTeam(owner.orgId, owner.token, team.id, { name: 'Live', applicationIds: [app] });
    expect(await canReadApp(member.token, app)).toBe(false);
    expect(await canReadApp(refreshed, app)).toBe(false);
  });
});

describe('atomic-write limit', () => {
  it('refuses an update needing more than 100 writes with 400 and no change, and accepts one that fits', async () => {
    const owner = await createTenant();
    const team = await newTeam(owner.orgId, owner.token, { name: 'Big' });
    const userIds: string[] = [];
    for (let i = 0; i < 100; i++) {
      const { userId } = await createUser({ email: `big-${randomUUID()}@example.test` });
      await addMember({ organizationId: owner.orgId, userId, permissions: ['read:team'] });
      userIds.push(userId);
    }
    // The team, 100 memberships and the audit entry: 102 writes.
    const tooBig = await putTeam(owner.orgId, owner.token, team.id, { name: 'Big', userIds });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.message).toContain('102 writes');
    expect(await readTeam(owner.orgId, owner.token, team.id)).toEqual(team);

    const fits = await putTeam(owner.orgId, owner.token, team.id, { name: 'Big', userIds: userIds.slice(0, 93) });
    expect(fits.status).toBe(200);
    expect(fits.body.team.users).toHaveLength(93);
    // A team of 93 users and applications can always be deleted.
    expect((await api('DELETE', teamPath(owner.orgId, team.id), { token: owner.token })).status).toBe(200);
  }, 120_000);
});

describe('operator changes to a membership', () => {
  it("re-running add-member changes permissions but keeps the member's teams", async () => {
    const tenant = await createTenant();
    const member = await addUserTo(tenant.orgId, ['read:application']);
    const created = await api('POST', `/api/v1/org/${tenant.orgId}/team`, {
      token: tenant.token,
      body: { name: 'keepers', organizationId: tenant.orgId, userIds: [member.userId] },
    });
    expect(created.status).toBe(200);
    const { addMember } = await import('../../shared/identity/admin.ts');
    await addMember({
      organizationId: tenant.orgId,
      userId: member.userId,
      permissions: ['read:application', 'read:team'],
      replace: true,
    });
    const me = await api('GET', '/api/v1/user', { token: member.token });
    expect(me.body.user.external.teams.map((t: { id: string }) => t.id)).toEqual([created.body.team.id]);
    expect((await api('GET', `/api/v1/org/${tenant.orgId}/teams`, { token: member.token })).status).toBe(200); // the new permission applies
  });
});
