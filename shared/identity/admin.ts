import { randomUUID } from 'node:crypto';
import { putOrganization } from './organization-repository.ts';
import { putUser } from './user-repository.ts';
import { putMembership, type Role } from './membership-repository.ts';
import { deleteApiKey, listApiKeys, putApiKey } from './api-key-repository.ts';
import { generateApiKey, hashApiKey } from '../auth/api-keys.ts';
import { PERMISSIONS, isPermission, type Permission } from './permissions.ts';
import { badRequest, notFound } from '../errors.ts';

// Operator actions the public API has no operations for (organizations, users, API keys). Used by the admin
// CLI, the first-start bootstrap of `npm start` and the tests' fixtures.

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createOrganization(input: { name: string; apiAccess?: boolean }): Promise<{ organizationId: string }> {
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
}): Promise<{ organizationId: string; userId: string; role: Role; permissions: Permission[] }> {
  const unknown = (input.permissions ?? []).filter((p) => !isPermission(p));
  if (unknown.length) throw badRequest(`unknown permission(s) ${unknown.join(', ')}; known: ${PERMISSIONS.join(', ')}`);
  const permissions = (input.permissions as Permission[] | undefined) ?? [...PERMISSIONS];
  const role = input.role ?? (input.permissions ? 'MEMBER' : 'ADMIN');
  await putMembership({ organizationId: input.organizationId, userId: input.userId, role, permissions, createdAt: Date.now() });
  return { organizationId: input.organizationId, userId: input.userId, role, permissions };
}

/** The key is returned once, here; only its hash is stored. */
export async function createApiKey(input: { userId: string }): Promise<{ apiKey: string; keyId: string }> {
  const { keyId, apiKey } = generateApiKey();
  await putApiKey({ keyId, userId: input.userId, secretHash: hashApiKey(apiKey), createdAt: Date.now() });
  return { apiKey, keyId };
}

export async function listUserApiKeys(input: { userId: string }) {
  const records = await listApiKeys(input.userId);
  return { apiKeys: records.map(({ keyId, createdAt }) => ({ keyId, createdAt: new Date(createdAt).toISOString() })) };
}

export async function revokeApiKey(input: { userId: string; keyId: string }): Promise<{ revoked: string }> {
  const record = (await listApiKeys(input.userId)).find((r) => r.keyId === input.keyId);
  if (!record) throw notFound(`user ${input.userId} has no API key ${input.keyId}`);
  await deleteApiKey(record);
  return { revoked: input.keyId };
}
