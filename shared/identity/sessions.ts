import { hashApiKey, normalizedApiKey } from '../auth/api-keys.ts';
import { issueAccessToken } from '../auth/tokens.ts';
import { apiKeysOfUserQuery, findApiKey, listApiKeys, noteApiKeyUse, type ApiKeyRecord } from './api-key-repository.ts';
import { getUser, type User } from './user-repository.ts';
import {
  getOrganizationAccess,
  membershipsAndOrganizationsOf,
  organizationAccessReads,
} from './membership-repository.ts';
import { type Membership, scopeAllows, type Caller } from '../context/caller.ts';
import type { Organization } from './organization-repository.ts';
import { hints } from './hints.ts';
import { keys } from '../db/keys.ts';
import { type OperationReads } from '../db/query.ts';
import { teamsOf, toUserView } from './user-view.ts';
import { unauthorized } from '../errors.ts';
import { logger } from '../context/logger.ts';
import type { Permission } from '../context/permissions.ts';
import { revokedHere } from './revocations.ts';
import { refreshSsoSession } from './sso-sessions.ts';
import { isSsoSessionId } from './model.ts';

// Sessions: an API key is exchanged for a 30-minute access token, which refresh extends (docs/API.md, Sessions).

/**
 * Organizations the user may reach through the API (docs/API.md, Sessions: the plan must have API access). `user`: the
 * user's item when the caller has read it, whose organization ids spare the index query (membership-repository.ts).
 */
export async function apiOrganizationsOf(userId: string, user?: User) {
  const { memberships, organizations: all } = await membershipsAndOrganizationsOf(userId, user);
  const organizations = all.filter((o) => o.apiAccess);
  hints.setOrganizationsOf(
    userId,
    organizations.map((o) => o.organizationId),
  );
  return { memberships, organizations };
}

/** The memberships and organizations the session reaches: a single sign-on session's one organization only. */
function inScope<T extends { memberships: Membership[]; organizations: Organization[] }>(caller: Caller, all: T): T {
  const only = caller.scope?.organizationId;
  if (!only) return all;
  return {
    ...all,
    memberships: all.memberships.filter((m) => m.organizationId === only),
    organizations: all.organizations.filter((o) => o.organizationId === only),
  };
}

/**
 * Not tied to an organization, so the route's permission is required in at least one organization whose plan
 * has API access; otherwise 401, like any insufficient authentication (docs/API.md, Errors).
 */
export async function requirePermissionInSomeOrganization(caller: Caller, permission: Permission): Promise<void> {
  // A key narrowed to one application reaches only operations addressed to it.
  if (caller.scope?.applicationId || !scopeAllows(caller.scope, permission)) throw unauthorized();
  const { memberships, organizations } = inScope(caller, await apiOrganizationsOf(caller.userId));
  if (memberships.some((m) => revokedHere(m, caller.apiKeyId))) throw unauthorized();
  const reachable = new Set(organizations.map((org) => org.organizationId));
  if (!memberships.some((m) => reachable.has(m.organizationId) && m.permissions.includes(permission)))
    throw unauthorized();
}

/**
 * Whether the user is a member of an organization whose plan has API access: first among the organizations the
 * user was last seen in (their membership and organization items, prefetched by login and refresh), else among all.
 */
async function hasApiOrganization(userId: string): Promise<boolean> {
  const hinted = await Promise.all(hints.organizationsOf(userId).map((orgId) => getOrganizationAccess(orgId, userId)));
  if (hinted.some(({ organization, membership }) => membership && organization?.apiAccess)) return true;
  return (await apiOrganizationsOf(userId)).organizations.length > 0;
}

/** Login and refresh alike: a user with no organization whose plan has API access gets no token. */
function requireApiOrganization(userId: string, hasOne: boolean): void {
  if (!hasOne) {
    logger.info('session refused: no organization with API access', { userId });
    throw unauthorized('Unauthorized: API access is not enabled for any organization of this user');
  }
}

/** An expired key is refused as an unknown one would be, saying so. */
function requireUnexpired(record: ApiKeyRecord, now: number): void {
  if (record.expiresAt !== undefined && record.expiresAt <= now)
    throw unauthorized(
      `Unauthorized: this API key expired at ${new Date(record.expiresAt).toISOString()}; create a new one`,
    );
}

/** A session of this key: ends when the key expires, if sooner, and carries the key's scope. */
function sessionToken(record: ApiKeyRecord, now: number): Promise<string> {
  const scope = {
    ...(record.permissions ? { permissions: record.permissions } : {}),
    ...(record.applicationId ? { applicationId: record.applicationId } : {}),
  };
  return issueAccessToken(record.userId, record.keyId, now, {
    scope: Object.keys(scope).length ? scope : undefined,
    notAfter: record.expiresAt,
  });
}

export async function login(apiKey: string | undefined): Promise<{ token: string }> {
  if (!normalizedApiKey(apiKey)) throw unauthorized('Unauthorized: send your API key in the X-ApiKey header');
  const secretHash = hashApiKey(normalizedApiKey(apiKey));
  const record = await findApiKey(secretHash);
  if (!record) throw unauthorized('Unauthorized: unknown API key');
  const now = Date.now();
  requireUnexpired(record, now);
  hints.setUserOfApiKey(secretHash, record.userId);
  // The use is noted beside the organization check, not after it: no round trip more (once a minute at most).
  const [apiOrganization] = await Promise.all([hasApiOrganization(record.userId), noteApiKeyUse(record, now)]);
  requireApiOrganization(record.userId, apiOrganization);
  return { token: await sessionToken(record, now) };
}

/**
 * A revoked or expired API key cannot extend its sessions (they end at the latest when their current token
 * expires), and refresh is refused as login would be for a user left with no organization with API access. The
 * new token carries the key's scope as stored.
 */
export async function refresh(caller: Pick<Caller, 'userId' | 'apiKeyId' | 'launchedFor'>): Promise<{ token: string }> {
  const { userId, apiKeyId } = caller;
  // A hosted runner's token is its starter's session narrowed to one run, lasting that run: a refresh would turn it
  // into the starter's whole session (shared/perch/runner.ts runnerToken).
  if (caller.launchedFor)
    throw unauthorized("Unauthorized: a hosted runner's token lasts its run and is not refreshed");
  if (isSsoSessionId(apiKeyId)) {
    const [apiOrganization, refreshed] = await Promise.all([
      hasApiOrganization(userId),
      refreshSsoSession(userId, apiKeyId),
    ]);
    requireApiOrganization(userId, apiOrganization);
    return refreshed;
  }
  const [apiKeys, apiOrganization] = await Promise.all([listApiKeys(userId), hasApiOrganization(userId)]);
  const record = apiKeys.find((key) => key.keyId === apiKeyId);
  if (!record) throw unauthorized('Unauthorized: the API key this session started with was revoked; log in again');
  const now = Date.now();
  requireUnexpired(record, now);
  requireApiOrganization(userId, apiOrganization);
  const [token] = await Promise.all([sessionToken(record, now), noteApiKeyUse(record, now)]);
  return { token };
}

/** `user.UserResponse` of the public API: clients read their organization ids from it. */
export async function currentUser(caller: Caller) {
  const { userId } = caller;
  const user = await getUser(userId);
  if (!user) throw unauthorized();
  const { memberships, organizations } = inScope(caller, await apiOrganizationsOf(userId, user));
  if (memberships.some((m) => revokedHere(m, caller.apiKeyId))) throw unauthorized();
  const apiOrgIds = new Set(organizations.map((o) => o.organizationId));
  const teams = await teamsOf(memberships.filter((m) => apiOrgIds.has(m.organizationId)));
  return { user: toUserView(user, organizations, memberships, teams) };
}

// What login, refresh and /user read before deciding (shared/http/prefetch.ts): with the organizations the user
// was last seen in (hints.ts), they take one round trip together with the rate-limit update.

export const loginReads: OperationReads = ({ headers }) => {
  const secretHash = hashApiKey(normalizedApiKey(headers['x-apikey']));
  const userId = hints.userOfApiKey(secretHash);
  return {
    items: [
      keys.apiKeyBySecretHash(secretHash),
      ...(userId ? organizationAccessReads(userId, hints.organizationsOf(userId)) : []),
    ],
  };
};

export const refreshReads: OperationReads = ({ caller }) => ({
  items: organizationAccessReads(caller!.userId, hints.organizationsOf(caller!.userId)),
  queries: [apiKeysOfUserQuery(caller!.userId)],
});

// /user: the user item and, for the organizations it was last seen in, the organization and membership items, which
// the user item's organization ids name (a user item from before they were kept costs a gsi1 query more).
export const currentUserReads: OperationReads = ({ caller }) => ({
  items: [keys.user(caller!.userId), ...organizationAccessReads(caller!.userId, hints.organizationsOf(caller!.userId))],
});
