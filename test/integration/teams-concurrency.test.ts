import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';
import {
  appIdsOf,
  canReadApp,
  myTeamIds,
  newApp,
  newTeam,
  putTeam,
  readTeam,
  userIdsOf,
  type TeamView,
} from './team-helpers.ts';

// Concurrent writes of one team: every write is conditioned on the team version it read, so two writes never
// interleave. Replace-all updates that overlap answer 409 (the client re-reads); those that succeed leave exactly
// the state they reported, with every member's and application's copy in step.

describe('concurrent team writes', () => {
  it('parallel replace-all updates from one read: each 200 or 409, the final state is one that a success reported, all copies in step', async () => {
    const owner = await createTenant();
    const outsider = await addUserTo(owner.orgId);
    const base = await addUserTo(owner.orgId);
    const baseApp = await newApp(owner.orgId, owner.token, 'base');
    const team = await newTeam(owner.orgId, owner.token, {
      name: 'Busy',
      userIds: [base.userId],
      applicationIds: [baseApp],
    });
    const writers = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => ({
        user: await addUserTo(owner.orgId),
        appId: await newApp(owner.orgId, owner.token, `app ${i}`),
      })),
    );

    const read = await readTeam(owner.orgId, owner.token, team.id);
    const results = await Promise.all(
      writers.map(({ user, appId }) =>
        putTeam(owner.orgId, owner.token, team.id, {
          name: read.name,
          userIds: [...userIdsOf(read), user.userId],
          applicationIds: [...appIdsOf(read), appId],
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(
      statuses.every((s) => s === 200 || s === 409),
      statuses.join(),
    ).toBe(true);
    const successes = results.filter((r) => r.status === 200).map((r) => r.body.team);
    expect(successes.length).toBeGreaterThan(0);
    for (const conflictResponse of results.filter((r) => r.status === 409))
      expect(conflictResponse.body.message).toContain('read it again');

    const final = await readTeam(owner.orgId, owner.token, team.id);
    const reported = successes.map((t: TeamView) => JSON.stringify([userIdsOf(t), appIdsOf(t)]));
    expect(reported).toContain(JSON.stringify([userIdsOf(final), appIdsOf(final)]));
    expect(userIdsOf(final)).toContain(base.userId);
    expect(appIdsOf(final)).toContain(baseApp);

    // Every copy agrees with the team: memberships (the user's teams, access) and ownership (who may read).
    for (const { user, appId } of [{ user: base, appId: baseApp }, ...writers]) {
      const inTeam = userIdsOf(final).includes(user.userId);
      expect(await myTeamIds(owner.orgId, user)).toEqual(inTeam ? [team.id] : []);
      const owned = appIdsOf(final).includes(appId);
      expect(await canReadApp(outsider.token, appId)).toBe(!owned);
      expect(await canReadApp(base.token, appId)).toBe(true);
    }
    const visible = await api('GET', `/api/v2/org/${owner.orgId}/apps`, {
      token: outsider.token,
      query: { pageSize: 1 },
    });
    expect(visible.body.totalCount).toBe(String(1 + writers.length - appIdsOf(final).length));
  });

  it('parallel moves of different applications into one team all land', async () => {
    const owner = await createTenant();
    const member = await addUserTo(owner.orgId);
    const team = await newTeam(owner.orgId, owner.token, { name: 'Collect', userIds: [member.userId] });
    const other = await newTeam(owner.orgId, owner.token, { name: 'Source' });
    const appIds = await Promise.all(Array.from({ length: 6 }, (_, i) => newApp(owner.orgId, owner.token, `app ${i}`)));
    await putTeam(owner.orgId, owner.token, other.id, { name: 'Source', applicationIds: appIds.slice(0, 3) });

    const results = await Promise.all(
      appIds.map((applicationId) =>
        api('PUT', `/api/v1/org/${owner.orgId}/team/${team.id}/application`, {
          token: member.token,
          body: { applicationId },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(appIds.map(() => 200));
    expect(appIdsOf(await readTeam(owner.orgId, owner.token, team.id))).toEqual([...appIds].sort());
    expect(appIdsOf(await readTeam(owner.orgId, owner.token, other.id))).toEqual([]);
    const audit = await api('GET', `/api/v1/org/${owner.orgId}/audit`, {
      token: owner.token,
      query: { types: 'APPLICATION_MODIFIED', pageSize: 100 },
    });
    expect(audit.body.totalCount).toBe(String(appIds.length));
  });

  it('applications created by a member while the team is replaced are kept, or removed only on the audit record', async () => {
    const owner = await createTenant();
    const member = await addUserTo(owner.orgId);
    const outsider = await addUserTo(owner.orgId);
    const team = await newTeam(owner.orgId, owner.token, { name: 'Racing', userIds: [member.userId] });
    const read = await readTeam(owner.orgId, owner.token, team.id);

    const [update, ...created] = await Promise.all([
      putTeam(owner.orgId, owner.token, team.id, {
        name: 'Racing 2',
        userIds: userIdsOf(read),
        applicationIds: appIdsOf(read),
      }),
      ...Array.from({ length: 4 }, (_, i) => newApp(owner.orgId, member.token, `new ${i}`)),
    ]);
    expect([200, 409]).toContain(update.status);
    const final = appIdsOf(await readTeam(owner.orgId, owner.token, team.id));
    // An application committed before the update read the team is removed by it (replace-all), and its TEAM_UPDATED
    // entry says so; one committed after is the team's. A conflicting update removes nothing.
    const audit = await api('GET', `/api/v1/org/${owner.orgId}/audit`, {
      token: owner.token,
      query: { types: 'TEAM_UPDATED' },
    });
    const removed: string[] = audit.body.auditRecords.flatMap(
      (r: { payload: string }) => JSON.parse(r.payload).removedApplicationIds,
    );
    if (update.status === 409) expect(removed).toEqual([]);
    for (const appId of created) {
      expect(final.includes(appId) !== removed.includes(appId), appId).toBe(true);
      expect(await canReadApp(outsider.token, appId)).toBe(!final.includes(appId));
    }
  });
});
