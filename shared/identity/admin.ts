import { randomUUID } from 'node:crypto';
import { listAllOrganizations, putOrganization } from './organization-repository.ts';
import { getUsers, putUser, userOrganizationUpdate } from './user-repository.ts';
import {
  getOrganizationAccess,
  listMembershipsOfOrg,
  listMembershipsOfUser,
  membershipDelete,
  putMembership,
} from './membership-repository.ts';
import { getTeams, teamUpdate } from '../applications/team-repository.ts';
import { transactWrite } from '../db/transactions.ts';
import { apiKeyDeletion, listApiKeys, putApiKey } from './api-key-repository.ts';
import { pruneRevocations, revocationOn } from './revocations.ts';
import { generateApiKey, hashApiKey } from '../auth/api-keys.ts';
import { PERMISSIONS, isPermission, type Permission } from '../context/permissions.ts';
import { badRequest, notFound } from '../errors.ts';
import { grantOf, ROLE_NAMES, type RoleName, type Role } from '../context/roles.ts';

// Operator actions the public API has no operations for (organizations, users, API keys). Used by the admin
// CLI, the first-start bootstrap of `npm start` and the tests' fixtures.

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createOrganization(input: {
  name: string;
  apiAccess?: boolean;
}): Promise<{ organizationId: string }> {
  const name = input.name?.trim();
  if (!name) throw badRequest('--name is required');
  const organizationId = randomUUID();
  await putOrganization({ organizationId, name, apiAccess: input.apiAccess ?? true, createdAt: Date.now() });
  return { organizationId };
}

export async function createUser(input: { email: string; fullName?: string }): Promise<{ userId: string }> {
  const email = input.email?.trim();
  if (!email || !EMAIL.test(email)) throw badRequest(`--email must be an e-mail address, got "${input.email ?? ''}"`);
  const userId = randomUUID();
  await putUser({ userId, email, fullName: input.fullName?.trim() || email.split('@')[0], createdAt: Date.now() });
  return { userId };
}

export async function addMember(input: {
  organizationId: string;
  userId: string;
  permissions?: string[];
  role?: Role;
  /** A named role (roles.ts): its permissions and public role; instead of `permissions` and `role`. */
  roleName?: string;
  /** Change an existing membership's role and permissions; without it an existing membership is refused (409). */
  replace?: boolean;
}): Promise<{ organizationId: string; userId: string; role: Role; permissions: Permission[] }> {
  if (input.roleName !== undefined) {
    if (!(ROLE_NAMES as readonly string[]).includes(input.roleName))
      throw badRequest(`--role must be one of ${ROLE_NAMES.join(', ')}, got "${input.roleName}"`);
    if (input.permissions) throw badRequest('give either --role or --permissions, not both');
  }
  const unknown = (input.permissions ?? []).filter((p) => !isPermission(p));
  if (unknown.length) throw badRequest(`unknown permission(s) ${unknown.join(', ')}; known: ${PERMISSIONS.join(', ')}`);
  const named = input.roleName ? grantOf({ role: input.roleName as RoleName }) : undefined;
  const permissions = named?.permissions ?? (input.permissions as Permission[] | undefined) ?? [...PERMISSIONS];
  const role = named?.role ?? input.role ?? (input.permissions ? 'MEMBER' : 'ADMIN');
  await putMembership(
    {
      organizationId: input.organizationId,
      userId: input.userId,
      role,
      ...(named ? { roleName: named.roleName } : {}),
      permissions,
      createdAt: Date.now(),
    },
    { replace: input.replace ?? false },
  );
  return { organizationId: input.organizationId, userId: input.userId, role, permissions };
}

/** The key is returned once, here; only its hash is stored. */
export async function createApiKey(input: {
  userId: string;
  name?: string;
}): Promise<{ apiKey: string; keyId: string }> {
  const { keyId, apiKey } = generateApiKey();
  await putApiKey({
    keyId,
    userId: input.userId,
    secretHash: hashApiKey(apiKey),
    createdAt: Date.now(),
    name: input.name ?? 'admin CLI',
  });
  return { apiKey, keyId };
}

export async function listUserApiKeys(input: { userId: string }) {
  const records = await listApiKeys(input.userId);
  return { apiKeys: records.map(({ keyId, createdAt }) => ({ keyId, createdAt: new Date(createdAt).toISOString() })) };
}

export async function revokeApiKey(input: { userId: string; keyId: string }): Promise<{ revoked: string }> {
  const record = (await listApiKeys(input.userId)).find((r) => r.keyId === input.keyId);
  if (!record) throw notFound(`user ${input.userId} has no API key ${input.keyId}`);
  // As revokeUserKey does (its tokens refused at once: docs/IDENTITY.md), without an audit entry: no user acts.
  const memberships = await listMembershipsOfUser(input.userId);
  const now = Date.now();
  await transactWrite([apiKeyDeletion(record), ...memberships.map((m) => revocationOn(m, record.keyId, now))]);
  await pruneRevocations(memberships, now);
  return { revoked: input.keyId };
}

/**
 * Removes the user from the organization: the membership and the user's place in each of its teams go in one
 * transaction (conditioned on the teams and membership read), so no team keeps a user who is not a member.
 * The user's API keys stay (other organizations); a user left without an API organization can no longer log in
 * or refresh.
 */
export async function removeMember(input: {
  organizationId: string;
  userId: string;
}): Promise<{ removed: string; organizationId: string }> {
  const { membership } = await getOrganizationAccess(input.organizationId, input.userId);
  if (!membership) throw notFound(`user ${input.userId} is not a member of organization ${input.organizationId}`);
  const teams = await getTeams(input.organizationId, membership.teamIds);
  await transactWrite([
    membershipDelete(membership),
    userOrganizationUpdate(input.userId, input.organizationId, 'DELETE'),
    ...teams.map((team) => teamUpdate(team, { ...team, userIds: team.userIds.filter((id) => id !== input.userId) })),
  ]);
  return { removed: input.userId, organizationId: input.organizationId };
}

export async function listMembers(input: { organizationId: string }) {
  const memberships = await listMembershipsOfOrg(input.organizationId);
  const users = new Map((await getUsers(memberships.map((m) => m.userId))).map((u) => [u.userId, u]));
  return {
    members: memberships.map((m) => ({
      userId: m.userId,
      email: users.get(m.userId)?.email ?? '',
      role: m.role,
      permissions: m.permissions,
      teamIds: m.teamIds ?? [],
    })),
  };
}

export async function listOrganizations() {
  const organizations = await listAllOrganizations();
  return {
    organizations: organizations.map((o) => ({
      organizationId: o.organizationId,
      name: o.name,
      apiAccess: o.apiAccess,
      createdAt: new Date(o.createdAt).toISOString(),
    })),
  };
}
