import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem, cancellationReasons } from '../db/items.ts';
import { badRequest } from '../errors.ts';
import { putNewItem } from '../db/transactions.ts';
import { batchGet, getItem } from '../db/query.ts';

export interface User {
  userId: string;
  email: string;
  fullName: string;
  createdAt: number;
}

/** Creates the user and claims its e-mail address in one transaction: e-mail addresses are unique. */
export async function putUser(user: User): Promise<void> {
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          putNewItem({ ...keys.user(user.userId), entity: 'user', ...user }),
          putNewItem({ ...keys.userEmail(user.email), entity: 'userEmail', userId: user.userId }),
        ],
      }),
    );
  } catch (error) {
    if (cancellationReasons(error)?.[1] === 'ConditionalCheckFailed') throw badRequest(`email ${user.email} is already used by another user`);
    throw error;
  }
}

export async function getUser(userId: string): Promise<User | undefined> {
  return fromItem<User>(await getItem(keys.user(userId)));
}

/** Existing users by id (unknown ones are left out); order is not kept. */
export async function getUsers(userIds: string[]): Promise<User[]> {
  const items = await batchGet([...new Set(userIds)].map((userId) => keys.user(userId)));
  return items.map((item) => fromItem<User>(item)!);
}
