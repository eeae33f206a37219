import { auditEntry } from '../audit/entries.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { cancelledItems, conditionFailed } from '../db/items.ts';
import { conflict, forbidden, notFound } from '../errors.ts';
import { pageOf, v1NextPageToken } from '../lists.ts';
import { getTeams, teamUpdate } from '../applications/team-repository.ts';
import { narrowed, scopeAllows, type Caller, type Membership } from '../context/caller.ts';
import { membershipDelete, membershipGrantUpdate, membershipsOfOrg, ownerRemains } from './membership-repository.ts';
import { getUsers, userOrganizationUpdate, type User } from './user-repository.ts';
import type { Permission } from '../context/permissions.ts';
import { grantOf, permissionsOfRole, publicRoleOf, ROLE_NAMES, roleNameOf, type Role } from '../context/roles.ts';
import type { ListMemberRolesQuery, UpdateMemberBody } from './inputs.ts';
import { owningRole } from './model.ts';

// Members and roles (docs/IDENTITY.md "Members and roles"): member managers (write:member) change a member's
// role or permissions and remove members. The rules: no one grants what they do not hold, only owners make or
// change owners, and the organization keeps at least one owner, checked inside the write's transaction.

export type Grant = ReturnType<typeof grantOf>;

/** hawk.Member: a member's named role and permissions, as ours (the public user.User shows only the public role). */
export function memberView(membership: Membership, user?: Pick<User, 'email' | 'fullName'>) {
  return {
    userId: membership.userId,
    email: user?.email ?? '',
    fullName: user?.fullName ?? '',
    role: membership.role,
    roleName: roleNameOf(membership),
    permissions: membership.permissions,
    createdAt: new Date(membership.createdAt).toISOString(),
  };
}

/** What the caller holds and may hand out: its membership's permissions, within its key's narrowing. */
function heldBy(caller: Caller, manager: Membership): Set<Permission> {
  return new Set(manager.permissions.filter((p) => scopeAllows(caller.scope, p)));
}

/**
 * Refuses (403, saying why) a manager acting on `target` beyond their own standing: granting permissions they lack,
 * changing a member who holds permissions they lack, or making or changing an owner without being one.
 */
export function requireStanding(
  caller: Caller,
  manager: Membership,
  owning: Role,
  target: { role: Membership['role']; permissions: Permission[] } | undefined,
  grant: Grant | undefined,
): void {
  const owner = manager.role === owning && !narrowed(caller.scope);
  if (grant?.role === 'OWNER' && !owner) throw forbidden('Forbidden: only an owner can make an owner');
  if (target?.role === owning && !owner)
    throw forbidden("Forbidden: only an owner can change or remove an owner's membership");
  const held = heldBy(caller, manager);
  const lacking = (permissions: Permission[]) => permissions.filter((p) => !held.has(p));
  const beyondTarget = target ? lacking(target.permissions) : [];
  if (beyondTarget.length)
    throw forbidden(
      `Forbidden: this member holds permissions you do not (${beyondTarget.join(', ')}); ask someone who holds them`,
    );
  const beyondGrant = grant ? lacking(grant.permissions) : [];
  if (beyondGrant.length)
    throw forbidden(`Forbidden: you cannot grant permissions you do not hold (${beyondGrant.join(', ')})`);
}

/**
 * The organization's memberships, the member among them, or 404 (also for a user of another organization:
 * nothing says whether that user exists), and the owning role.
 */
async function memberOf(orgId: string, userId: string) {
  const memberships = await membershipsOfOrg(orgId);
  const target = memberships.find((m) => m.userId === userId);
  if (!target) throw notFound(`member ${userId} not found in organization ${orgId}`);
  return { target, memberships, owning: owningRole(memberships) };
}

const LAST_OWNER =
  "the organization's last owner cannot be removed or made anything but an owner: make another member an owner first";

/**
 * When `target` stops being an owner: the check that another owner remains as the transaction commits, or 409 when
 * there is none. Owners demoting each other concurrently then cannot both succeed and leave no owner.
 */
function lastOwnerGuard(
  target: Membership,
  grant: Grant | undefined,
  memberships: Membership[],
  owning: Role,
): TransactItem[] {
  const stillOwner = grant !== undefined && (grant.role === owning || grant.role === 'OWNER');
  if (target.role !== owning || stillOwner) return [];
  const other = memberships
    .filter((m) => m.role === owning && m.userId !== target.userId)
    .sort((a, b) => a.createdAt - b.createdAt || a.userId.localeCompare(b.userId))[0];
  if (!other) throw conflict(LAST_OWNER);
  return [ownerRemains(target.organizationId, other.userId, owning)];
}

/** The write's outcome: the target changed meanwhile (409, try again) or the last owner would go (409). */
async function commit(items: TransactItem[], userId: string): Promise<void> {
  try {
    await transactWrite(items);
  } catch (error) {
    if (conditionFailed(error, 'lastOwner')) throw conflict(LAST_OWNER);
    // Any other failed condition or conflict: the member, the user or one of its teams changed since the read.
    const lost = ({ code }: { code: string }) => code === 'ConditionalCheckFailed' || code === 'TransactionConflict';
    if (cancelledItems(error)?.some(lost))
      throw conflict(`member ${userId} was changed meanwhile: read it again and retry`);
    throw error;
  }
}

/** PUT /api/v1/org/{orgId}/members/{userId} (updateMember): a named role or a custom permission set. */
export async function updateMember(caller: Caller, orgId: string, userId: string, body: UpdateMemberBody) {
  const manager = await caller.authorize(orgId);
  const { target, memberships, owning } = await memberOf(orgId, userId);
  const grant = grantOf(body.role ? { role: body.role } : { permissions: body.permissions! });
  requireStanding(caller, manager, owning, target, grant);
  const guard = lastOwnerGuard(target, grant, memberships, owning);
  const [user] = await getUsers([userId]);
  const audit = auditEntry(caller, orgId, 'USER_MODIFIED', {
    userId,
    email: user?.email ?? '',
    roleName: grant.roleName,
    role: grant.role,
    permissions: grant.permissions,
    previousRoleName: roleNameOf(target),
    previousPermissions: target.permissions,
  });
  await commit([membershipGrantUpdate(target, grant), ...guard, audit], userId);
  return { member: memberView({ ...target, ...grant }, user) };
}

/**
 * DELETE /api/v1/org/{orgId}/members/{userId} (removeMember): the membership, the user's place in the
 * organization's teams and on the user item, in one transaction with its audit entry. The member's next request
 * to the organization is refused (the per-request membership read), and so is a refresh when no other
 * organization with API access remains to them. Their API keys stay theirs (other organizations).
 */
export async function removeMember(caller: Caller, orgId: string, userId: string): Promise<object> {
  const manager = await caller.authorize(orgId);
  const { target, memberships, owning } = await memberOf(orgId, userId);
  requireStanding(caller, manager, owning, target, undefined);
  const guard = lastOwnerGuard(target, undefined, memberships, owning);
  const [teams, [user]] = await Promise.all([getTeams(orgId, target.teamIds), getUsers([userId])]);
  const audit = auditEntry(caller, orgId, 'REMOVE_USER', {
    userId,
    email: user?.email ?? '',
    roleName: roleNameOf(target),
  });
  await commit(
    [
      membershipDelete(target),
      ...guard,
      userOrganizationUpdate(userId, orgId, 'DELETE'),
      ...teams.map((team) => teamUpdate(team, { ...team, userIds: team.userIds.filter((id) => id !== userId) })),
      audit,
    ],
    userId,
  );
  return {};
}

/** The named roles: what each grants and how the public API shows it. */
export const roleDefinitions = () =>
  ROLE_NAMES.map((name) => ({ name, role: publicRoleOf(name), permissions: permissionsOfRole(name) }));

/** GET /api/v1/org/{orgId}/roles (listMemberRoles): the named roles, and a page of members (by user id) with theirs. */
export async function listMemberRoles(caller: Caller, orgId: string, q: ListMemberRolesQuery) {
  await caller.authorize(orgId);
  const memberships = (await membershipsOfOrg(orgId)).sort((a, b) => a.userId.localeCompare(b.userId));
  const request = { page: q.pageToken, size: q.pageSize };
  const page = pageOf(memberships, request);
  const users = new Map((await getUsers(page.items.map((m) => m.userId))).map((u) => [u.userId, u]));
  return {
    roles: roleDefinitions(),
    members: page.items.map((m) => memberView(m, users.get(m.userId))),
    nextPageToken: v1NextPageToken(request, page.totalCount),
    totalCount: page.totalCount,
  };
}
