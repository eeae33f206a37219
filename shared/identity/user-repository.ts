import { keys } from '../db/keys.ts';
import { conditionFailed, fromItem, named } from '../db/items.ts';
import { badRequest } from '../errors.ts';
import { putNewItem, transactWrite, type TransactItem } from '../db/transactions.ts';
import { batchGet, getItem } from '../db/query.ts';
import { config } from '../config.ts';
import { itemReadId, peekPrefetched } from '../db/prefetch.ts';
import type { ActorNames } from '../context/caller.ts';

export interface User {
  userId: string;
  email: string;
  fullName: string;
  createdAt: number;
  /**
   * The organizations the user is a member of, written in each membership write's transaction (a copy of the
   * membership items' ids: GET /api/v1/user then reads memberships and organizations by key, in the request's one
   * BatchGetItem, instead of querying gsi1 beside it). Absent when empty (DynamoDB has no empty sets).
   */
  organizationIds?: Set<string>;
  /** Whether `organizationIds` is complete: true for users created since it is kept; older ones are read from gsi1. */
  organizationIdsKept?: boolean;
  /**
   * The organization whose identity provider made this user at a first sign-in (shared/sso/provisioning.ts). Its
   * address is only that provider's word, which any organization's owner controls: it claims no e-mail address, so
   * the address's owner may still have an account of their own (an invitation's) elsewhere.
   */
  provisionedBy?: string;
}

/** Creates the user and claims its e-mail address in one transaction: e-mail addresses are unique. */
export async function putUser(user: Omit<User, 'organizationIds' | 'organizationIdsKept'>): Promise<void> {
  try {
    await transactWrite(newUserItems(user));
  } catch (error) {
    if (conditionFailed(error, 'emailTaken')) throw badRequest(`email ${user.email} is already used by another user`);
    throw error;
  }
}

/**
 * The user's item and its e-mail claim (both new), for a transaction (putUser, invitations, sign-in's provisioning);
 * a user a provider made (`provisionedBy`) claims no address.
 */
export const newUserItems = (
  user: Omit<User, 'organizationIds' | 'organizationIdsKept'>,
  /** The organizations it joins in the same transaction (whose membership writes then leave the user item alone). */
  organizationIds: string[] = [],
): TransactItem[] => [
  putNewItem({
    ...keys.user(user.userId),
    entity: 'user',
    ...user,
    organizationIdsKept: true,
    ...(organizationIds.length ? { organizationIds: new Set(organizationIds) } : {}),
  }),
  ...(user.provisionedBy
    ? []
    : [named('emailTaken', putNewItem({ ...keys.userEmail(user.email), entity: 'userEmail', userId: user.userId }))]),
];

/** The id of the user with this e-mail address (any case), if any. */
export async function userIdOfEmail(email: string): Promise<string | undefined> {
  const item = await getItem(keys.userEmail(email));
  return item ? String(item.userId) : undefined;
}

export async function getUser(userId: string): Promise<User | undefined> {
  return fromItem<User>(await getItem(keys.user(userId)));
}

/**
 * The user's name and e-mail as audit entries record them (empty for a user that is gone). A read of the user item
 * the request prefetched is left for the request's own read of the user (shared/db/prefetch.ts, peekPrefetched).
 */
export async function actorNames(userId: string): Promise<ActorNames> {
  const key = keys.user(userId);
  const user = fromItem<User>(await (peekPrefetched<Record<string, unknown>>(itemReadId(key)) ?? getItem(key)));
  return { fullName: user?.fullName ?? '', email: user?.email ?? '' };
}

/** Existing users by id (unknown ones are left out); order is not kept. */
export async function getUsers(userIds: string[]): Promise<User[]> {
  const items = await batchGet([...new Set(userIds)].map((userId) => keys.user(userId)));
  return items.map((item) => fromItem<User>(item)!);
}

/**
 * A membership write's part on the user item: it must exist, and lists the organization from now on ('ADD') or no
 * longer ('DELETE').
 */
export const userOrganizationUpdate = (
  userId: string,
  organizationId: string,
  change: 'ADD' | 'DELETE',
): TransactItem =>
  named('userGone', {
    Update: {
      TableName: config.tableName,
      Key: keys.user(userId),
      UpdateExpression: `${change} organizationIds :org`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':org': new Set([organizationId]) },
    },
  });
