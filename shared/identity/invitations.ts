import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { conditionFailed, failedConditions, fromItem, named } from '../db/items.ts';
import { getItem, queryAll } from '../db/query.ts';
import { putNewItem, requireItem, type TransactItem, transactWrite } from '../db/transactions.ts';
import { auditEntry } from '../audit/entries.ts';
import { badRequest, conflict, forbidden, gone, notFound, unauthorized } from '../errors.ts';
import { generateApiKey, hashApiKey } from '../auth/api-keys.ts';
import type { Caller, Membership } from '../context/caller.ts';
import { getMemberships, membershipCreation, membershipsOfOrg } from './membership-repository.ts';
import { getUser, newUserItems, userIdOfEmail, userOrganizationUpdate, type User } from './user-repository.ts';
import { requireLiveWholeSession } from './user-keys.ts';
import { grantOf, type MemberRoleName, type Role } from '../context/roles.ts';
import { memberView, requireStanding } from './member-management.ts';
import { owningRole } from './model.ts';
import type { Permission } from '../context/permissions.ts';
import type { AcceptInvitationAsUserBody, AcceptInvitationBody, CreateInvitationBody } from './inputs.ts';

// Invitations (docs/IDENTITY.md "Invitations"): a member manager invites someone by e-mail and gets a token that
// stands in for the e-mail a deployment would send. The token works once and expires; only its hash is stored.
// Accepting it makes the e-mail's user a member with the invited role: a new user (with a first API key) through the
// link alone, an existing one only signed in as that user.

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
  const audit = auditEntry(
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
  const audit = auditEntry(caller, orgId, 'USER_INVITE_REVOKED', {
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

/** The invitation the token stands for, checked (404 unknown or wrong secret, 410 expired). */
async function invitationOfToken(token: string, now: number): Promise<InvitationRecord> {
  const [invitationId] = token.split('.');
  const record = await invitationOf(invitationId);
  const presented = Buffer.from(tokenHash(token), 'hex');
  if (!record || !timingSafeEqual(presented, Buffer.from(record.secretHash, 'hex'))) throw notFound(NOT_VALID);
  if (record.validUntil <= now) throw gone(`this invitation expired at ${iso(record.validUntil)}: ask for a new one`);
  return record;
}

/**
 * The invitation's deletion (conditioned on its hash and expiry: it works once), the membership, the audit entry
 * and `userWrites` (the user's creation, or the organization added to it), in one transaction.
 */
async function join(record: InvitationRecord, user: User, userWrites: TransactItem[], now: number) {
  const orgId = record.organizationId;
  const membership: Omit<Membership, 'revokedApiKeys'> = {
    organizationId: orgId,
    userId: user.userId,
    role: record.role,
    roleName: record.roleName,
    permissions: record.permissions,
    teamIds: [],
    createdAt: now,
  };
  const audit = auditEntry(
    { userId: user.userId, known: user },
    orgId,
    'USER_JOINED_ORG',
    {
      invitationId: record.invitationId,
      userId: user.userId,
      email: record.email,
      roleName: record.roleName,
      invitedBy: record.invitedBy,
    },
    now,
  );
  try {
    await transactWrite([
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
  return { organizationId: orgId, member: memberView({ ...membership, teamIds: [] }, user) };
}

/**
 * POST /api/v1/invitations/accept (acceptInvitation), without credentials: the token is the credential, and it
 * creates an account only. The address's user, their first API key (shown once in this answer) and the membership
 * are written with the invitation's deletion. An address that has a user already is refused (401) and the
 * invitation kept: that user accepts it signed in (acceptInvitationAsUser), so that whoever holds the link (the
 * inviter included) cannot attach an existing account to their organization without its credentials.
 */
export async function acceptInvitation(body: AcceptInvitationBody) {
  const now = Date.now();
  const record = await invitationOfToken(body.token, now);
  if (await userIdOfEmail(record.email))
    throw unauthorized(
      `Unauthorized: ${record.email} already has an account: sign in with it and accept the invitation there ` +
        '(POST /api/v1/user/invitations/accept)',
    );
  const user: User = {
    userId: randomUUID(),
    email: record.email,
    fullName: body.fullName ?? record.email.split('@')[0],
    createdAt: now,
  };
  const firstKey = generateApiKey();
  const secretHash = hashApiKey(firstKey.apiKey);
  const userWrites = [
    ...newUserItems(user, [record.organizationId]),
    putNewItem({
      ...keys.apiKey(secretHash, user.userId, firstKey.keyId),
      entity: 'apiKey',
      keyId: firstKey.keyId,
      userId: user.userId,
      secretHash,
      createdAt: now,
      name: 'first key (invitation)',
    }),
  ];
  return { ...(await join(record, user, userWrites, now)), apiKey: firstKey.apiKey, userCreated: true };
}

/**
 * POST /api/v1/user/invitations/accept (acceptInvitationAsUser): the signed-in caller accepts an invitation to
 * their own address (403 for any other: a link never binds another account), with a session of their whole
 * account (a narrowed key cannot join organizations). No key is issued: they use theirs.
 */
export async function acceptInvitationAsUser(caller: Caller, body: AcceptInvitationAsUserBody) {
  const now = Date.now();
  const [record, user] = await Promise.all([
    invitationOfToken(body.token, now),
    requireLiveWholeSession(caller, 'accept invitations').then(() => getUser(caller.userId)),
  ]);
  if (!user) throw unauthorized();
  if (user.email.toLowerCase() !== record.email.toLowerCase())
    throw forbidden(`Forbidden: this invitation is for another e-mail address than ${user.email}`);
  if ((await getMemberships(record.organizationId, [user.userId])).length)
    throw conflict(`${record.email} is already a member of this organization`);
  const joined = await join(record, user, [userOrganizationUpdate(user.userId, record.organizationId, 'ADD')], now);
  return { ...joined, apiKey: '', userCreated: false };
}
