import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addUserTo, createTenant } from './fixtures.ts';
import { createApp, startScan } from './scan-helpers.ts';
import { newTeam } from './team-helpers.ts';
import { getTeam, teamNameClaim, teamUpdate } from '../../shared/applications/team-repository.ts';
import { addMember, createUser } from '../../shared/identity/admin.ts';
import { getMemberships, membershipGrantUpdate, ownerRemains } from '../../shared/identity/membership-repository.ts';
import { newUserItems } from '../../shared/identity/user-repository.ts';
import { roleNameOf } from '../../shared/context/roles.ts';
import { findingsCount } from '../../shared/results/scan-repository.ts';
import { reportsFull } from '../../shared/results/model.ts';
import { cancelledItems, conditionFailed } from '../../shared/db/items.ts';
import { transactWrite, type TransactItem } from '../../shared/db/transactions.ts';

// A cancelled transaction is read by the names of its items, never by their positions (docs/DATA-MODEL.md,
// Projections): the same items in another order report the same conflict.

const cancellation = (items: TransactItem[]) =>
  transactWrite(items).then(
    () => undefined,
    (error: unknown) => error,
  );

describe('conflicts by name', () => {
  it('a taken e-mail address is reported at its claim, in whichever order the user items are written', async () => {
    const email = `named-${randomUUID()}@example.test`;
    await createUser({ email, fullName: 'First' });
    const items = newUserItems({ userId: randomUUID(), email, fullName: 'Second', createdAt: Date.now() });
    for (const order of [items, [...items].reverse()]) {
      const error = await cancellation(order);
      expect(conditionFailed(error, 'emailTaken')).toBe(true);
      expect(cancelledItems(error)?.filter((item) => item.code === 'ConditionalCheckFailed')).toEqual([
        { code: 'ConditionalCheckFailed', name: 'emailTaken' },
      ]);
    }
    await expect(createUser({ email, fullName: 'Second' })).rejects.toThrow(
      `email ${email} is already used by another user`,
    );
  });

  it('a member change that would leave no owner is reported as lastOwner, not as a changed member, in any order', async () => {
    const tenant = await createTenant();
    const reader = await addUserTo(tenant.orgId, ['read:member']);
    const [owner, other] = await getMemberships(tenant.orgId, [tenant.userId, reader.userId]).then((found) =>
      [tenant.userId, reader.userId].map((id) => found.find((m) => m.userId === id)!),
    );
    expect(other.role).not.toBe(owner.role);
    const grant = { role: owner.role, roleName: roleNameOf(owner), permissions: owner.permissions };
    // The owner's own change is valid; the other member is no owner, so the guard fails.
    const items = [membershipGrantUpdate(owner, grant), ownerRemains(tenant.orgId, other.userId, owner.role)];
    for (const order of [items, [...items].reverse()]) {
      const error = await cancellation(order);
      expect(conditionFailed(error, 'lastOwner')).toBe(true);
      expect(conditionFailed(error, 'memberChanged')).toBe(false);
    }
    // A grant read from a stale role: the member changed, and the guard (another owner's own role) holds.
    const stale = { ...owner, role: other.role };
    for (const order of [
      [membershipGrantUpdate(stale, grant), ownerRemains(tenant.orgId, owner.userId, owner.role)],
      [ownerRemains(tenant.orgId, owner.userId, owner.role), membershipGrantUpdate(stale, grant)],
    ]) {
      const error = await cancellation(order);
      expect(conditionFailed(error, 'memberChanged')).toBe(true);
      expect(conditionFailed(error, 'lastOwner')).toBe(false);
    }
  });

  it('an existing membership is refused by name (memberExists), not taken for a missing user or organization', async () => {
    const tenant = await createTenant();
    await expect(addMember({ organizationId: tenant.orgId, userId: tenant.userId })).rejects.toThrow(
      `user ${tenant.userId} is already a member of organization ${tenant.orgId}`,
    );
    await expect(addMember({ organizationId: tenant.orgId, userId: randomUUID() })).rejects.toThrow(/does not exist/);
  });

  it('an alert at its most reports is reported by its own name, wherever its count stands among the others', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const started = await startScan(tenant.token, appId);
    const scan = { applicationId: appId, environmentId: started.envId, scanId: started.scanId };
    // One report each allowed: alert `a` has had its one.
    await transactWrite(findingsCount(scan, [{ pluginId: 'a', first: 0, count: 1 }], 1));
    const counts = [
      { pluginId: 'b', first: 0, count: 1 },
      { pluginId: 'a', first: 1, count: 1 },
    ];
    for (const order of [counts, [...counts].reverse()]) {
      const items = findingsCount(scan, order, 1);
      for (const arranged of [items, [...items].reverse()]) {
        const error = await cancellation(arranged);
        expect(conditionFailed(error, reportsFull('a'))).toBe(true);
        expect(conditionFailed(error, reportsFull('b'))).toBe(false);
        expect(conditionFailed(error, 'scanEnded')).toBe(false);
      }
    }
  });

  it("a team's rename to a taken name is reported as nameTaken, and a stale team as teamChanged, in any order", async () => {
    const tenant = await createTenant();
    const other = await newTeam(tenant.orgId, tenant.token, { name: `taken-${randomUUID()}` });
    const team = await newTeam(tenant.orgId, tenant.token, { name: `renamed-${randomUUID()}` });
    const current = (await getTeam(tenant.orgId, team.id))!;
    const renamed = { ...current, name: other.name, version: current.version + 1 };
    const items = [teamUpdate(current, renamed), teamNameClaim(renamed)];
    for (const order of [items, [...items].reverse()]) {
      const error = await cancellation(order);
      expect(conditionFailed(error, 'nameTaken')).toBe(true);
      expect(conditionFailed(error, 'teamChanged')).toBe(false);
    }
    const stale = { ...current, version: current.version - 1 };
    const free = { ...renamed, name: `free-${randomUUID()}` };
    const staleItems = [teamUpdate(stale, free), teamNameClaim(free)];
    for (const order of [staleItems, [...staleItems].reverse()]) {
      const error = await cancellation(order);
      expect(conditionFailed(error, 'teamChanged')).toBe(true);
      expect(conditionFailed(error, 'nameTaken')).toBe(false);
    }
  });
});
