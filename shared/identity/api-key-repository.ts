import { DeleteCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem, cancellationReasons } from '../db/items.ts';
import { queryAll } from '../db/query.ts';
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
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') throw badRequest(`user ${record.userId} does not exist`);
    throw error;
  }
}

export async function findApiKey(secretHash: string): Promise<ApiKeyRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.apiKeyBySecretHash(secretHash) }));
  return fromItem<ApiKeyRecord>(out.Item);
}

export async function listApiKeys(userId: string): Promise<ApiKeyRecord[]> {
  const { gsi1pk, gsi1skPrefix } = keys.apiKeysOfUser(userId);
  const items = await queryAll({ index: 'gsi1', partition: gsi1pk, skPrefix: gsi1skPrefix });
  return items.map((item) => fromItem<ApiKeyRecord>(item)!);
}

export async function deleteApiKey(record: ApiKeyRecord): Promise<void> {
  await db.send(new DeleteCommand({ TableName: config.tableName, Key: keys.apiKeyBySecretHash(record.secretHash) }));
}
