import { addMember, createApiKey, createOrganization, createUser } from '../../shared/identity/admin.ts';
import type { Permission } from '../../shared/context/permissions.ts';
import { api } from './client.ts';

let counter = 0;
const unique = (label: string) => `${label}-${process.pid}-${Date.now()}-${++counter}`;

export interface Tenant {
  orgId: string;
  userId: string;
  apiKey: string;
  token: string;
}

/** A fresh organization with one user (all permissions unless given), an API key and a logged-in token. */
export async function createTenant(options: { permissions?: Permission[]; apiAccess?: boolean } = {}): Promise<Tenant> {
  const { organizationId: orgId } = await createOrganization({
    name: unique('org'),
    apiAccess: options.apiAccess ?? true,
  });
  const member = await addUserTo(orgId, options.permissions);
  return { orgId, ...member };
}

/** Another user in an existing organization, logged in. */
export async function addUserTo(orgId: string, permissions?: Permission[]): Promise<Omit<Tenant, 'orgId'>> {
  const { userId } = await createUser({ email: `${unique('user')}@example.test`, fullName: 'Test User' });
  await addMember({ organizationId: orgId, userId, permissions });
  const { apiKey } = await createApiKey({ userId });
  const login = await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': apiKey } });
  return { userId, apiKey, token: login.body.token };
}
