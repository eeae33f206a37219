import { keys } from '../db/keys.ts';
import { fromItem, conditionFailed, named } from '../db/items.ts';
import { batchGet, queryAll, type PartitionQuery } from '../db/query.ts';
import { config } from '../config.ts';
import { badRequest, conflict } from '../errors.ts';
import { requireItem, transactWrite, type TransactItem } from '../db/transactions.ts';
import type { Permission } from '../context/permissions.ts';
import type { MemberRoleName, Role } from '../context/roles.ts';
import type { Organization } from './organization-repository.ts';
import { userOrganizationUpdate, type User } from './user-repository.ts';
import type { Membership } from '../context/caller.ts';

/**
 * Adds a membership, or, with `replace`, changes an existing one's role and permissions (without it an existing
 * membership is refused with 409); the organization and the user must exist. Its teams are kept: they are owned by the team items and change only with them.
 */
export async function putMembership(
  membership: Omit<Membership, 'teamIds'>,
  options: { replace: boolean },
): Promise<void> {
  const { organizationId, userId, role, roleName, permissions, createdAt } = membership;
  try {
    await transactWrite([
      named('organizationGone', requireItem(keys.organization(membership.organizationId))),
      userOrganizationUpdate(membership.userId, membership.organizationId, 'ADD'),
      named('memberExists', {
        Update: {
          TableName: config.tableName,
          Key: { pk: keys.membership(organizationId, userId).pk, sk: keys.membership(organizationId, userId).sk },
          UpdateExpression:
            'SET entity = :entity, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk, organizationId = :org, userId = :user, #role = :role, ' +
            '#permissions = :permissions, createdAt = if_not_exists(createdAt, :createdAt), teamIds = if_not_exists(teamIds, :noTeams)' +
            (roleName ? ', roleName = :roleName' : ' REMOVE roleName'),
          ...(options.replace ? {} : { ConditionExpression: 'attribute_not_exists(pk)' }),
          ExpressionAttributeNames: { '#role': 'role', '#permissions': 'permissions' },
          ExpressionAttributeValues: {
            ':entity': 'membership',
            ':gsi1pk': keys.membership(organizationId, userId).gsi1pk,
            ':gsi1sk': keys.membership(organizationId, userId).gsi1sk,
            ':org': organizationId,
            ':user': userId,
            ':role': role,
            ':permissions': permissions,
            ':createdAt': createdAt,
            ':noTeams': [],
            ...(roleName ? { ':roleName': roleName } : {}),
          },
        },
      }),
    ]);
  } catch (error) {
    if (conditionFailed(error, 'organizationGone')) throw badRequest(`organization ${organizationId} does not exist`);
    if (conditionFailed(error, 'userGone')) throw badRequest(`user ${userId} does not exist`);
    if (conditionFailed(error, 'memberExists')) {
      throw conflict(
        `user ${userId} is already a member of organization ${organizationId}: pass --replace to change its role and permissions`,
      );
    }
    throw error;
  }
}

/**
 * The organization and the caller's membership of it, in one BatchGetItem: this is the per-request
 * authorization read, so permission and team changes apply to the very next request.
 */
export async function getOrganizationAccess(
  orgId: string,
  userId: string,
): Promise<{ organization?: Organization; membership?: Membership }> {
  const items = await batchGet(organizationAccessKeys(orgId, userId));
  return {
    organization: fromItem<Organization>(items.find((item) => item.sk === '#ORG')),
    membership: fromItem<Membership>(items.find((item) => item.sk !== '#ORG')),
  };
}

/** The items getOrganizationAccess reads (the pipeline prefetches them: shared/http/prefetch.ts). */
export const organizationAccessKeys = (orgId: string, userId: string) => [
  keys.organization(orgId),
  membershipKey(orgId, userId),
];

/** The caller's membership and the organization, for each of these organizations. */
export const organizationAccessReads = (userId: string, orgIds: string[]): Record<string, unknown>[] =>
  orgIds.flatMap((orgId) => organizationAccessKeys(orgId, userId));

/** The query listMembershipsOfUser runs (the pipeline prefetches it for /user). */
export function membershipsOfUserQuery(userId: string): PartitionQuery {
  const { gsi1pk, gsi1skPrefix } = keys.membershipsOfUser(userId);
  return { index: 'gsi1', partition: gsi1pk, skPrefix: gsi1skPrefix };
}

export async function listMembershipsOfUser(userId: string): Promise<Membership[]> {
  const items = await queryAll(membershipsOfUserQuery(userId));
  return items.map((item) => fromItem<Membership>(item)!);
}

/**
 * The user's memberships and their organizations. From the organization ids the user item keeps (user-repository.ts),
 * by key in one BatchGetItem (the pipeline prefetches those of the organizations the user was last seen in); for a
 * user item written before it kept them, from gsi1 and then the organizations.
 */
export async function membershipsAndOrganizationsOf(
  userId: string,
  user?: User,
): Promise<{ memberships: Membership[]; organizations: Organization[] }> {
  if (!user?.organizationIdsKept) {
    const memberships = await listMembershipsOfUser(userId);
    return { memberships, organizations: await getOrganizations(memberships.map((m) => m.organizationId)) };
  }
  const items = await batchGet(
    [...(user.organizationIds ?? [])].flatMap((orgId) => organizationAccessKeys(orgId, userId)),
  );
  const memberships = items.filter((item) => item.sk !== '#ORG').map((item) => fromItem<Membership>(item)!);
  const memberOf = new Set(memberships.map((m) => m.organizationId));
  const organizations = items.filter((item) => item.sk === '#ORG').map((item) => fromItem<Organization>(item)!);
  return { memberships, organizations: organizations.filter((o) => memberOf.has(o.organizationId)) };
}

/** Every membership of the organization (its partition's MEMBER# items). */
export async function membershipsOfOrg(orgId: string): Promise<Membership[]> {
  const { pk, skPrefix } = keys.membershipsOfOrg(orgId);
  return (await queryAll({ partition: pk, skPrefix })).map((item) => fromItem<Membership>(item)!);
}

/** The membership item's primary key (without its index keys). */
function membershipKey(orgId: string, userId: string) {
  const { pk, sk } = keys.membership(orgId, userId);
  return { pk, sk };
}

/** These users' memberships of the organization (users who are not members are left out); order is not kept. */
export async function getMemberships(orgId: string, userIds: string[]): Promise<Membership[]> {
  const items = await batchGet([...new Set(userIds)].map((userId) => membershipKey(orgId, userId)));
  return items.map((item) => fromItem<Membership>(item)!);
}

export async function getOrganizations(orgIds: string[]): Promise<Organization[]> {
  const items = await batchGet(orgIds.map((id) => keys.organization(id)));
  return items.map((item) => fromItem<Organization>(item)!);
}

/** The organization's memberships (one partition range). */
export async function listMembershipsOfOrg(orgId: string): Promise<Membership[]> {
  const { pk, skPrefix } = keys.membershipsOfOrg(orgId);
  return (await queryAll({ partition: pk, skPrefix })).map((item) => fromItem<Membership>(item)!);
}

/** Deletes a membership, provided its teams are still those read (team writes change them in step). */
export function membershipDelete(membership: Membership): TransactItem {
  return named('memberChanged', {
    Delete: {
      TableName: config.tableName,
      Key: membershipKey(membership.organizationId, membership.userId),
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(teamIds) OR size(teamIds) = :teams)',
      ExpressionAttributeValues: { ':teams': membership.teamIds.length },
    },
  });
}

// ---- Members and roles (docs/IDENTITY.md "Members and roles")

/** A new membership's item (the user must not be a member yet), for a transaction with its user and audit entry. */
export function membershipCreation(membership: Omit<Membership, 'revokedApiKeys'>): TransactItem {
  const { organizationId, userId } = membership;
  return named('memberExists', {
    Put: {
      TableName: config.tableName,
      Item: { ...keys.membership(organizationId, userId), entity: 'membership', ...membership },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });
}

/** Changes a membership's role and permissions, provided its public role is still the one read (owner counting). */
export function membershipGrantUpdate(
  membership: Membership,
  grant: { role: Role; roleName: MemberRoleName; permissions: Permission[] },
): TransactItem {
  return named('memberChanged', {
    Update: {
      TableName: config.tableName,
      Key: membershipKey(membership.organizationId, membership.userId),
      UpdateExpression: 'SET #role = :role, roleName = :roleName, #permissions = :permissions',
      ConditionExpression: 'attribute_exists(pk) AND #role = :was',
      ExpressionAttributeNames: { '#role': 'role', '#permissions': 'permissions' },
      ExpressionAttributeValues: {
        ':role': grant.role,
        ':roleName': grant.roleName,
        ':permissions': grant.permissions,
        ':was': membership.role,
      },
    },
  });
}

/**
 * Another owner (`owning`: OWNER, or ADMIN in an organization without owners) is still one when the transaction commits: with it, a transaction that removes or demotes an
 * owner never leaves the organization without one, even when owners are demoted concurrently.
 */
export function ownerRemains(orgId: string, ownerId: string, owning: Role): TransactItem {
  return named('lastOwner', {
    ConditionCheck: {
      TableName: config.tableName,
      Key: membershipKey(orgId, ownerId),
      ConditionExpression: '#role = :owner',
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: { ':owner': owning },
    },
  });
}
