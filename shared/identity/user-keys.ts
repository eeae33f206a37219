import { generateApiKey, hashApiKey } from '../auth/api-keys.ts';
import { liveSsoSession } from './sso-sessions.ts';
import { isSsoSessionId, owningRole } from './model.ts';
import { auditEntry } from '../audit/entries.ts';
import type { AuditActor } from '../audit/model.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { conditionFailed } from '../db/items.ts';
import { mapInParallel } from '../db/query.ts';
import { accessibleApplication } from '../applications/access.ts';
import { badRequest, conflict, forbidden, notFound, unauthorized } from '../errors.ts';
import { pageOf, v1NextPageToken } from '../lists.ts';
import type { Caller, Membership } from '../context/caller.ts';
import {
  apiKeyCreation,
  apiKeyDeletion,
  keyOrganizations,
  listApiKeys,
  type ApiKeyRecord,
} from './api-key-repository.ts';
import { requireStanding } from './member-management.ts';
import { membershipsAndOrganizationsOf, membershipsOfOrg } from './membership-repository.ts';
import { getUser, getUsers } from './user-repository.ts';
import { pruneRevocations, revocationOn, revokedHere } from './revocations.ts';
import type { CreateUserKeyBody, ListOrganizationKeysQuery } from './inputs.ts';

// API keys in settings (docs/IDENTITY.md "API keys"): a signed-in user creates, lists and revokes their own keys;
// an organization's member managers (write:member) see its members' keys and revoke them. Keys belong to users,
// not organizations, so each change is audited in every organization of the key's user (only the application's
// organization for a key narrowed to one application), in the change's transaction.

/** Active keys a user may hold: bounds the key list every refresh reads. */
export const MAX_API_KEYS_PER_USER = 50;

const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());

/** hawk.ApiKey: metadata only, never the secret or its hash. `organizationId`: the key's (empty: whole account). */
export function keyView(record: ApiKeyRecord, owner?: { email: string }, organizationId = record.organizationId) {
  return {
    id: record.keyId,
    name: record.name ?? '',
    createdAt: iso(record.createdAt),
    lastUsedAt: iso(record.lastUsedAt),
    expiresAt: iso(record.expiresAt),
    permissions: record.permissions ?? [],
    applicationId: record.applicationId ?? '',
    organizationId: organizationId ?? '',
    userId: record.userId,
    userEmail: owner?.email ?? '',
  };
}

/** Key management needs a session of a whole key: a narrowed key must not mint or revoke keys. */
function requireWholeSession(caller: Caller, action = 'manage API keys'): void {
  if (caller.scope)
    throw unauthorized(`Unauthorized: a narrowed API key cannot ${action}; sign in with an unrestricted key`);
}

/** The session's API key still exists (else it was revoked), or its single sign-on session is still live. */
async function requireLiveSession(caller: Caller, keysOfUser: ApiKeyRecord[]): Promise<void> {
  const live = isSsoSessionId(caller.apiKeyId)
    ? Boolean(await liveSsoSession(caller.userId, caller.apiKeyId))
    : keysOfUser.some((key) => key.keyId === caller.apiKeyId);
  if (!live) throw unauthorized();
}

/** The user's memberships, refusing a session whose key was revoked (the memberships record it). */
async function membershipsOfSession(caller: Caller): Promise<Membership[]> {
  const { memberships } = await membershipsAndOrganizationsOf(caller.userId, await getUser(caller.userId));
  if (memberships.some((m) => revokedHere(m, caller.apiKeyId))) throw unauthorized();
  return memberships;
}

/**
 * A session of the user's whole account that is still live (its key not revoked, its single sign-on session not
 * ended), for acts on the account itself such as accepting an invitation; the user's memberships.
 */
export async function requireLiveWholeSession(caller: Caller, action: string): Promise<Membership[]> {
  requireWholeSession(caller, action);
  const [memberships, keysOfUser] = await Promise.all([membershipsOfSession(caller), listApiKeys(caller.userId)]);
  await requireLiveSession(caller, keysOfUser);
  return memberships;
}

/** The organizations a key's changes are audited in. */
function auditedOrganizations(record: ApiKeyRecord, memberships: Membership[], keyOrganization?: string): string[] {
  if (record.applicationId && keyOrganization) return [keyOrganization];
  return memberships.map((m) => m.organizationId);
}

function auditEntries(
  actor: AuditActor,
  orgIds: string[],
  type: 'API_KEY_ADDED' | 'API_KEY_REMOVED',
  record: ApiKeyRecord,
  now: number,
): TransactItem[] {
  const payload = { keyId: record.keyId, name: record.name ?? '', userId: record.userId };
  return orgIds.map((orgId) => auditEntry(actor, orgId, type, payload, now));
}

/** POST /api/v1/user/keys (createUserKey): the key is in this answer only; its hash is what is stored. */
export async function createUserKey(caller: Caller, body: CreateUserKeyBody) {
  requireWholeSession(caller);
  const now = Date.now();
  if (body.expiresAt !== undefined && body.expiresAt <= now) throw badRequest('body.expiresAt: must be in the future');
  const [memberships, existing] = await Promise.all([membershipsOfSession(caller), listApiKeys(caller.userId)]);
  await requireLiveSession(caller, existing);
  if (existing.length >= MAX_API_KEYS_PER_USER)
    throw conflict(`a user holds at most ${MAX_API_KEYS_PER_USER} API keys: revoke one first`);
  // A key narrowed to an application: the caller must reach it now (team rules included).
  const keyOrganization = body.applicationId
    ? (await accessibleApplication(caller, body.applicationId, { teamRestricted: true })).app.organizationId
    : undefined;
  const { keyId, apiKey } = generateApiKey();
  const record: ApiKeyRecord = {
    keyId,
    userId: caller.userId,
    secretHash: hashApiKey(apiKey),
    createdAt: now,
    name: body.name,
    ...(body.expiresAt !== undefined ? { expiresAt: body.expiresAt } : {}),
    ...(body.permissions ? { permissions: [...new Set(body.permissions)].sort() } : {}),
    ...(body.applicationId ? { applicationId: body.applicationId, organizationId: keyOrganization } : {}),
  };
  const audit = auditEntries(
    caller,
    auditedOrganizations(record, memberships, keyOrganization),
    'API_KEY_ADDED',
    record,
    now,
  );
  await transactWrite([...apiKeyCreation(record), ...audit]);
  return { key: keyView(record), apiKey };
}

/** GET /api/v1/user/keys (listUserKeys): the caller's keys, newest first. */
export async function listUserKeys(caller: Caller) {
  const records = await listApiKeys(caller.userId);
  // The session's own key gone: it was revoked (a session of a narrowed key may still list its user's keys).
  await requireLiveSession(caller, records);
  const keyOrgs = await keyOrganizations(records);
  return {
    keys: records
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((record) => keyView(record, undefined, keyOrgs.get(record.keyId))),
  };
}

/**
 * Deletes the key (login with it fails from now on, and refresh of its tokens) and records the revocation on each
 * membership of its user (its tokens fail at the next authorization read), with the audit entries, in one
 * transaction.
 */
async function revoke(actor: Caller, record: ApiKeyRecord, memberships: Membership[], auditOrgIds: string[]) {
  const now = Date.now();
  const audit = auditEntries(actor, auditOrgIds, 'API_KEY_REMOVED', record, now);
  const revocations = memberships.map((m) => revocationOn(m, record.keyId, now));
  try {
    await transactWrite([apiKeyDeletion(record), ...revocations, ...audit]);
  } catch (error) {
    // The key was revoked meanwhile: as if it had not been found.
    if (conditionFailed(error, 'keyGone')) throw notFound(`API key ${record.keyId} not found`);
    throw error;
  }
  await pruneRevocations(memberships, now);
}

/** DELETE /api/v1/user/keys/{keyId} (revokeUserKey). */
export async function revokeUserKey(caller: Caller, keyId: string): Promise<object> {
  requireWholeSession(caller);
  const [memberships, records] = await Promise.all([membershipsOfSession(caller), listApiKeys(caller.userId)]);
  const record = records.find((key) => key.keyId === keyId);
  if (!record) throw notFound(`API key ${keyId} not found`);
  const keyOrganization = (await keyOrganizations([record])).get(record.keyId);
  await revoke(caller, record, memberships, auditedOrganizations(record, memberships, keyOrganization));
  return {};
}

/**
 * Whether a key is this organization's to see: narrowed to one of its applications, or unnarrowed (it reaches the
 * member's whole account, this organization included). A key narrowed to another organization's application is
 * never shown to this one (docs/IDENTITY.md "Keys of an organization's members").
 */
const reachesOrganization = (record: ApiKeyRecord, orgId: string, keyOrgs: Map<string, string>) =>
  !record.applicationId || keyOrgs.get(record.keyId) === orgId;

/**
 * GET /api/v1/org/{orgId}/keys (listOrganizationKeys): a page of the organization's members (by user id) and each
 * one's keys that reach this organization, metadata only. Paged by member so that one request reads a bounded
 * number of key lists.
 */
export async function listOrganizationKeys(caller: Caller, orgId: string, q: ListOrganizationKeysQuery) {
  await caller.authorize(orgId);
  const memberships = (await membershipsOfOrg(orgId)).sort((a, b) => a.userId.localeCompare(b.userId));
  const request = { page: q.pageToken, size: q.pageSize };
  const page = pageOf(memberships, request);
  const userIds = page.items.map((m) => m.userId);
  const [users, keyLists] = await Promise.all([
    getUsers(userIds),
    mapInParallel(userIds, 16, (userId) => listApiKeys(userId)),
  ]);
  const byId = new Map(users.map((user) => [user.userId, user]));
  const keyOrgs = await keyOrganizations(keyLists.flat());
  return {
    keys: keyLists
      .flat()
      .filter((record) => reachesOrganization(record, orgId, keyOrgs))
      .sort((a, b) => a.userId.localeCompare(b.userId) || b.createdAt - a.createdAt)
      .map((record) => keyView(record, byId.get(record.userId), keyOrgs.get(record.keyId))),
    nextPageToken: v1NextPageToken(request, page.totalCount),
    totalCount: page.totalCount,
  };
}

/**
 * DELETE /api/v1/org/{orgId}/members/{userId}/keys/{keyId} (revokeMemberKey): a key narrowed to one of this
 * organization's applications, of a member the caller may change (member management's standing rules); audited
 * here. Its revocation is recorded on this membership only: its tokens reach nothing else. A key of another
 * organization answers 404, as an unknown one; a key of the member's whole account 403: it serves their other
 * organizations too, so only its user revokes it (removing the member ends its access here).
 */
export async function revokeMemberKey(caller: Caller, orgId: string, userId: string, keyId: string): Promise<object> {
  const manager = await caller.authorize(orgId);
  const [memberships, records] = await Promise.all([membershipsOfOrg(orgId), listApiKeys(userId)]);
  const member = memberships.find((m) => m.userId === userId);
  // Not a member: no answer says whether that user or key exists elsewhere.
  const record = member && records.find((key) => key.keyId === keyId);
  const keyOrgs = record ? await keyOrganizations([record]) : new Map<string, string>();
  if (!record || !reachesOrganization(record, orgId, keyOrgs))
    throw notFound(`API key ${keyId} not found among the keys of member ${userId}`);
  if (!record.applicationId)
    throw forbidden(
      `Forbidden: API key ${keyId} is not narrowed to an application of this organization: it serves the member's ` +
        'other organizations too, so only its user can revoke it (removing the member ends its access here)',
    );
  requireStanding(caller, manager, owningRole(memberships), member, undefined);
  await revoke(caller, record, [member], [orgId]);
  return {};
}
