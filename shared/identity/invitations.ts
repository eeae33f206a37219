import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { conditionFailed, failedConditions, fromItem, named } from '../db/items.ts';
import { getItem, queryAll, transactWriteRetryingConflicts } from '../db/query.ts';
import { putNewItem, requireItem, type TransactItem } from '../db/transactions.ts';
import { auditEntry, transactWrite } from '../audit/entries.ts';
import { badRequest, conflict, gone, notFound } from '../errors.ts';
import { generateApiKey, hashApiKey } from '../auth/api-keys.ts';
import type { Caller } from '../http/caller.ts';
import { getMemberships, membershipCreation, membershipsOfOrg, type Membership } from './membership-repository.ts';
import { getUser, userOrganizationUpdate } from './user-repository.ts';
import { grantOf, type MemberRoleName, type Role } from './roles.ts';
import { memberView, owningRole, requireStanding } from './member-management.ts';
import type { Permission } from './permissions.ts';
import type { AcceptInvitationBody, CreateInvitationBody } from './inputs.ts';

// Invitations (docs/IDENTITY.md "Invitations"): a member manager invites someone by e-mail and gets a token that
// stands in for the e-mail a deployment would send. The token works once and expires; only its hash is stored.
// Accepting it makes the e-mail's user (created then, with a first API key, if there is none) a member with the
// invited role.

/** How long an invitation is valid unless the inviter says otherwise, and at most. */
export const INVITATION_LIFETIME_MS = 7 * 86_400_000;
export const MAX_INVITATION_LIFETIME_MS = 30 * 86_400_000;
/** Pending invitations an organization holds at most: bounds the list and what one manager can pile up. */
export const MAX_PENDING_INVITATIONS = 200;

interface InvitationRecord {
  invitationId: string;
  organizationId: string;
  email: string;
  role: Role;
  roleName: MemberRoleName;
  permissions: Permission[];
  /** SHA-256 of the whole token: the token itself is never stored. */
  secretHash: string;
  createdAt: number;
  /** Milliseconds since the epoch: accepted until then. */
  validUntil: number;
  /** Seconds since the epoch, a day after validUntil: the table's TTL removes the item then. */
  expiresAt: number;
  invitedBy: string;
}

const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
const iso = (ms: number) => new Date(ms).toISOString();

/** hawk.Invitation: never the token nor its hash. */
function invitationView(record: InvitationRecord) {
  return {
    id: record.invitationId,
    email: record.email,
    role: record.role,
    roleName: record.roleName,
    permissions: record.permissions,
    createdAt: iso(record.createdAt),
    expiresAt: iso(record.validUntil),
    invitedBy: record.invitedBy,
  };
}

async function pendingOf(orgId: string, now: number): Promise<InvitationRecord[]> {
  const { gsi1pk } = keys.invitationsOfOrg(orgId);
  const items = await queryAll({ index: 'gsi1', partition: gsi1pk });
  return items.map((item) => fromItem<InvitationRecord>(item)!).filter((record) => record.validUntil > now);
}

/** The user an e-mail address belongs to, if any (the e-mail claim names it). */
async function userIdOfEmail(email: string): Promise<string | undefined> {
  return (await getItem(keys.userEmail(email)))?.userId as string | undefined;
}

/** POST /api/v1/org/{orgId}/invitations (createInvitation): the token is in this answer only. */
export async function createInvitation(caller: Caller, orgId: string, body: CreateInvitationBody) {
  const manager = await caller.authorize(orgId);
  const grant = grantOf(body.permissions ? { permissions: body.permissions } : { role: body.role ?? 'MEMBER' });
  requireStanding(caller, manager, owningRole(await membershipsOfOrg(orgId)), undefined, grant);
  const now = Date.now();
  const validUntil = body.expiresAt ?? now + INVITATION_LIFETIME_MS;
  if (validUntil <= now) throw badRequest('body.expiresAt: must be in the future');
  if (validUntil > now + MAX_INVITATION_LIFETIME_MS) throw badRequest('body.expiresAt: must be within 30 days');
  const [existingUserId, pending] = await Promise.all([userIdOfEmail(body.email), pendingOf(orgId, now)]);
  if (existingUserId && (await getMemberships(orgId, [existingUserId])).length)
    throw conflict(`${body.email} is already a member of this organization`);
  if (pending.length >= MAX_PENDING_INVITATIONS)
    throw conflict(`an organization holds at most ${MAX_PENDING_INVITATIONS} pending invitations: revoke some first`);

  const invitationId = randomUUID();
  const token = `${invitationId}.${randomBytes(32).toString('base64url')}`;
  const record: InvitationRecord = {
    invitationId,
    organizationId: orgId,
    email: body.email,
    ...grant,
    secretHash: tokenHash(token),
    createdAt: now,
    validUntil,
    expiresAt: Math.ceil(validUntil / 1000) + 86_400,
    invitedBy: caller.userId,
  };
  const audit = await auditEntry(
    caller,
    orgId,
    'INVITE_USER',
    { invitationId, email: body.email, roleName: grant.roleName },
    now,
  );
  await transactWrite([
    requireItem(keys.organization(orgId)),
    putNewItem({ ...keys.invitation(invitationId, orgId, now), entity: 'invitation', ...record }),
    audit,
  ]);
  return { invitation: invitationView(record), token };
}

/** GET /api/v1/org/{orgId}/invitations (listInvitations): the pending ones (not expired), oldest first. */
export async function listInvitations(caller: Caller, orgId: string) {
  await caller.authorize(orgId);
  return { invitations: (await pendingOf(orgId, Date.now())).map(invitationView) };
}

/** The invitation's deletion, provided it is still the one read (a concurrent revocation or acceptance fails it). */
function invitationDeletion(record: InvitationRecord, now?: number): TransactItem {
  return named('inviteUsed', {
    Delete: {
      TableName: config.tableName,
      Key: keys.invitationById(record.invitationId),
      ConditionExpression: `secretHash = :hash${now === undefined ? '' : ' AND validUntil > :now'}`,
      ExpressionAttributeValues: { ':hash': record.secretHash, ...(now === undefined ? {} : { ':now': now }) },
    },
  });
}

async function invitationOf(invitationId: string): Promise<InvitationRecord | undefined> {
  return fromItem<InvitationRecord>(await getItem(keys.invitationById(invitationId)));
}

/** DELETE /api/v1/org/{orgId}/invitations/{invitationId} (revokeInvitation): its token stops working at once. */
export async function revokeInvitation(caller: Caller, orgId: string, invitationId: string): Promise<object> {
  await caller.authorize(orgId);
  const record = await invitationOf(invitationId);
  // Another organization's invitation is as unknown as a missing one.
  if (!record || record.organizationId !== orgId) throw notFound(`invitation ${invitationId} not found`);
  const audit = await auditEntry(caller, orgId, 'USER_INVITE_REVOKED', {
    invitationId,
    email: record.email,
    roleName: record.roleName,
  });
  try {
    await transactWrite([invitationDeletion(record), audit]);
  } catch (error) {
    if (conditionFailed(error, 'inviteUsed')) throw notFound(`invitation ${invitationId} not found`);
    throw error;
  }
  return {};
}

const NOT_VALID = 'this invitation is not valid: it was already used or revoked, or never existed';

/**
 * POST /api/v1/invitations/accept (acceptInvitation), without credentials: the token is the credential. The
 * invitation's deletion (conditioned on its hash and expiry: it works once), the membership and the audit entry
 * go in one transaction; for an e-mail with no user yet, also the user, its e-mail claim and its first API key,
 * which this answer shows once. A user who exists gets no key here: they sign in with their own.
 */
export async function acceptInvitation(body: AcceptInvitationBody) {
  const [invitationId] = body.token.split('.');
  const record = await invitationOf(invitationId);
  const presented = Buffer.from(tokenHash(body.token), 'hex');
  if (!record || !timingSafeEqual(presented, Buffer.from(record.secretHash, 'hex'))) throw notFound(NOT_VALID);
  const now = Date.now();
  if (record.validUntil <= now) throw gone(`this invitation expired at ${iso(record.validUntil)}: ask for a new one`);
  const orgId = record.organizationId;
  const existingUserId = await userIdOfEmail(record.email);
  const existingUser = existingUserId ? await getUser(existingUserId) : undefined;
  if (existingUser && (await getMemberships(orgId, [existingUser.userId])).length)
    throw conflict(`${record.email} is already a member of this organization`);

  const userId = existingUser?.userId ?? randomUUID();
  const user = existingUser ?? {
    userId,
    email: record.email,
    fullName: body.fullName ?? record.email.split('@')[0],
    createdAt: now,
  };
  const membership: Omit<Membership, 'revokedApiKeys'> = {
    organizationId: orgId,
    userId,
    role: record.role,
    roleName: record.roleName,
    permissions: record.permissions,
    teamIds: [],
    createdAt: now,
  };
  const audit = await auditEntry(
    { userId, known: user },
    orgId,
    'USER_JOINED_ORG',
    { invitationId, userId, email: record.email, roleName: record.roleName, invitedBy: record.invitedBy },
    now,
  );
  const firstKey = existingUser ? undefined : generateApiKey();
  const userWrites: TransactItem[] = existingUser
    ? [userOrganizationUpdate(userId, orgId, 'ADD')]
    : [
        putNewItem({
          ...keys.user(userId),
          entity: 'user',
          ...user,
          organizationIds: new Set([orgId]),
          organizationIdsKept: true,
        }),
        putNewItem({ ...keys.userEmail(record.email), entity: 'userEmail', userId }),
        putNewItem({
          ...keys.apiKey(hashApiKey(firstKey!.apiKey), userId, firstKey!.keyId),
          entity: 'apiKey',
          keyId: firstKey!.keyId,
          userId,
          secretHash: hashApiKey(firstKey!.apiKey),
          createdAt: now,
          name: 'first key (invitation)',
        }),
      ];
  try {
    await transactWriteRetryingConflicts([
      invitationDeletion(record, now),
      named('organizationGone', requireItem(keys.organization(orgId))),
      membershipCreation(membership),
      audit,
      ...userWrites,
    ]);
  } catch (error) {
    if (conditionFailed(error, 'inviteUsed') || conditionFailed(error, 'organizationGone')) throw notFound(NOT_VALID);
    if (conditionFailed(error, 'memberExists'))
      throw conflict(`${record.email} is already a member of this organization`);
    // The user's writes: created or changed by another request since the read.
    if (failedConditions(error).length)
      throw conflict(`the user of ${record.email} changed meanwhile: accept the invitation again`);
    throw error;
  }
  return {
    organizationId: orgId,
    member: memberView({ ...membership, teamIds: [] }, user),
    apiKey: firstKey?.apiKey ?? '',
    userCreated: !existingUser,
  };
}
