import { hashApiKey, normalizedApiKey } from '../auth/api-keys.ts';
import { issueAccessToken } from '../auth/tokens.ts';
import { findApiKey, listApiKeys } from './api-key-repository.ts';
import { getUser } from './user-repository.ts';
import { listMembershipsOfUser, getOrganizations } from './membership-repository.ts';
import { teamsOf, toUserView } from './user-view.ts';
import { unauthorized } from '../errors.ts';
import { logger } from '../http/logger.ts';
import type { Caller } from '../http/caller.ts';
import type { Permission } from './permissions.ts';

// Sessions: an API key is exchanged for a 30-minute access token, which refresh extends (SPEC 5).

/** Organizations the user may reach through the API (SPEC 1: the plan must have API access). */
export async function apiOrganizationsOf(userId: string) {
  const memberships = await listMembershipsOfUser(userId);
  const organizations = await getOrganizations(memberships.map((m) => m.organizationId));
  return { memberships, organizations: organizations.filter((o) => o.apiAccess) };
}

/**
 * Not tied to an organization, so the route's permission is required in at least one organization whose plan
 * has API access; otherwise 401, like any insufficient authentication (SPEC 5.7).
 */
export async function requirePermissionInSomeOrganization(caller: Caller, permission: Permission): Promise<void> {
  const { memberships, organizations } = await apiOrganizationsOf(caller.userId);
  const reachable = new Set(organizations.map((org) => org.organizationId));
  if (!memberships.some((m) => reachable.has(m.organizationId) && m.permissions.includes(permission))) throw unauthorized();
}

/** Login and refresh alike: a user with no organization whose plan has API access gets no token. */
async function requireApiOrganization(userId: string): Promise<void> {
  const { organizations } = await apiOrganizationsOf(userId);
  if (organizations.length === 0) {
    logger.info('session refused: no organization with API access', { userId });
    throw unauthorized('Unauthorized: API access is not enabled for any organization of this user');
  }
}

export async function login(apiKey: string | undefined): Promise<{ token: string }> {
  if (!normalizedApiKey(apiKey)) throw unauthorized('Unauthorized: send your API key in the X-ApiKey header');
  const record = await findApiKey(hashApiKey(normalizedApiKey(apiKey)));
  if (!record) throw unauthorized('Unauthorized: unknown API key');
  await requireApiOrganization(record.userId);
  return { token: await issueAccessToken(record.userId, record.keyId) };
}

/**
 * A revoked API key cannot extend its sessions (they end at the latest when their current token expires), and
 * refresh is refused as login would be for a user left with no organization with API access.
 */
export async function refresh(userId: string, apiKeyId: string): Promise<{ token: string }> {
  const keys = await listApiKeys(userId);
  if (!keys.some((key) => key.keyId === apiKeyId)) throw unauthorized('Unauthorized: the API key this session started with was revoked; log in again');
  await requireApiOrganization(userId);
  return { token: await issueAccessToken(userId, apiKeyId) };
}

/** `user.UserResponse` of the public API: clients read their organization ids from it. */
export async function currentUser(userId: string) {
  const user = await getUser(userId);
  if (!user) throw unauthorized();
  const { memberships, organizations } = await apiOrganizationsOf(userId);
  const apiOrgIds = new Set(organizations.map((o) => o.organizationId));
  const teams = await teamsOf(memberships.filter((m) => apiOrgIds.has(m.organizationId)));
  return { user: toUserView(user, organizations, memberships, teams) };
}
