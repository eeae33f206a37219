import { DeleteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem, cancellationReasons } from '../db/items.ts';
import { getItem, queryAll, type PartitionQuery } from '../db/query.ts';
import { config } from '../config.ts';
import { badRequest } from '../errors.ts';
import { putNewItem, requireItem } from '../db/transactions.ts';

/** What is stored of an API key: never the secret itself, only its SHA-256 hash. */
export interface ApiKeyRecord {
  keyId: string;
  userId: string;
  secretHash: string;
  createdAt: number;
}

export async function putApiKey(record: ApiKeyRecord): Promise<void> {
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          requireItem(keys.user(record.userId)),
          putNewItem({ ...keys.apiKey(record.secretHash, record.userId, record.keyId), entity: 'apiKey', ...record }),
        ],
      }),
    );
  } catch (error) {
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed')
      throw badRequest(`user ${record.userId} does not exist`);
    throw error;
  }
}

export async function findApiKey(secretHash: string): Promise<ApiKeyRecord | undefined> {
  return fromItem<ApiKeyRecord>(await getItem(keys.apiKeyBySecretHash(secretHash)));
}

/** The query listApiKeys runs (refresh prefetches it). */
export function apiKeysOfUserQuery(userId: string): PartitionQuery {
  const { gsi1pk, gsi1skPrefix } = keys.apiKeysOfUser(userId);
  return { index: 'gsi1', partition: gsi1pk, skPrefix: gsi1skPrefix };
}

export async function listApiKeys(userId: string): Promise<ApiKeyRecord[]> {
  const items = await queryAll(apiKeysOfUserQuery(userId));
  return items.map((item) => fromItem<ApiKeyRecord>(item)!);
}

export async function deleteApiKey(record: ApiKeyRecord): Promise<void> {
  await db.send(new DeleteCommand({ TableName: config.tableName, Key: keys.apiKeyBySecretHash(record.secretHash) }));
}
