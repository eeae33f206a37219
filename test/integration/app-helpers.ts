import { expect } from 'vitest';
import { api } from './client.ts';
import type { Tenant } from './fixtures.ts';
import { getOrganizationAccess } from '../../shared/identity/membership-repository.ts';
import { teamMembers } from '../../shared/applications/entities.ts';
import { derivedWrites } from '../../shared/db/entity-write.ts';
import { getTeam, teamNameClaim, teamPut, teamUpdate } from '../../shared/applications/team-repository.ts';
import { transactWrite } from '../../shared/db/transactions.ts';

// Helpers of the application, environment, list and audit tests.

/** Puts an existing member of the organization into these teams, creating those that do not exist yet. */
export async function joinTeams(orgId: string, userId: string, teamIds: string[]): Promise<void> {
  for (const teamId of teamIds) {
    const { membership } = await getOrganizationAccess(orgId, userId);
    const team = await getTeam(orgId, teamId);
    const joined = {
      teamId,
      organizationId: orgId,
      name: `team ${teamId}`,
      applicationIds: [],
      version: 1,
      createdAt: Date.now(),
      ...team,
      userIds: [...(team?.userIds ?? []), userId],
    };
    const teamWrites = team ? [teamUpdate(team, joined)] : [teamPut(joined), teamNameClaim(joined)];
    const memberships = new Map([[userId, membership!]]);
    await transactWrite([...teamWrites, ...derivedWrites(teamMembers, team, joined, { memberships })]);
  }
}

export async function auditTypes(tenant: Tenant): Promise<string[]> {
  const out = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: tenant.token, query: { pageSize: 1000 } });
  expect(out.status).toBe(200);
  return out.body.auditRecords.map((r: { userActivityType: string }) => r.userActivityType);
}
