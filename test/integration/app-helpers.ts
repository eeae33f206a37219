import { expect } from 'vitest';
import { api } from './client.ts';
import type { Tenant } from './fixtures.ts';
import { putMembership, getOrganizationAccess } from '../../shared/repositories/memberships.ts';

// Helpers of the application, environment, list and audit tests.

/** Puts an existing member of the organization into these teams (teams themselves come with the teams issue). */
export async function joinTeams(orgId: string, userId: string, teamIds: string[]): Promise<void> {
  const { membership } = await getOrganizationAccess(orgId, userId);
  await putMembership({ ...membership!, teamIds });
}

export async function auditTypes(tenant: Tenant): Promise<string[]> {
  const out = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: tenant.token, query: { pageSize: 1000 } });
  expect(out.status).toBe(200);
  return out.body.auditRecords.map((r: { userActivityType: string }) => r.userActivityType);
}
