import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { conditionFailed, fromItem, named } from '../db/items.ts';
import { batchGet, getItem, queryAll, type PartitionQuery } from '../db/query.ts';
import { config } from '../config.ts';
import { badRequest } from '../errors.ts';
import { putNewItem, requireItem, transactWrite, type TransactItem } from '../db/transactions.ts';
import type { Permission } from '../context/permissions.ts';

/** What is stored of an API key: never the secret itself, only its SHA-256 hash. */
export interface ApiKeyRecord {
  keyId: string;
  userId: string;
  secretHash: string;
  createdAt: number;
  /** Given by its user (keys made by the admin CLI before names existed have none). */
  name?: string;
  /** Milliseconds since the epoch; absent: the key does not expire. */
  expiresAt?: number;
  /** The last login or refresh with it, to the minute (LAST_USED_GRANULARITY_MS). */
  lastUsedAt?: number;
  /** A narrowed key: only these permissions (within the member's own). */
  permissions?: Permission[];
  /** A narrowed key: only operations addressed to this application. */
  applicationId?: string;
  /** The organization of `applicationId`, recorded with it since keys are scoped per organization (older keys lack it). */
  organizationId?: string;
}

/** lastUsedAt is written when it is older than this: a key used in a loop writes once a minute, not per login. */
export const LAST_USED_GRANULARITY_MS = 60_000;

/** The new key's item (with its user required to exist), for a transaction with its audit entries. */
export function apiKeyCreation(record: ApiKeyRecord): TransactItem[] {
  return [
    named('userGone', requireItem(keys.user(record.userId))),
    putNewItem({ ...keys.apiKey(record.secretHash, record.userId, record.keyId), entity: 'apiKey', ...record }),
  ];
}

/** The key's deletion, provided it still exists (a concurrent revocation is then reported, not repeated). */
export function apiKeyDeletion(record: ApiKeyRecord): TransactItem {
  return named('keyGone', {
    Delete: {
      TableName: config.tableName,
      Key: keys.apiKeyBySecretHash(record.secretHash),
      ConditionExpression: 'attribute_exists(pk)',
    },
  });
}

/** Records a use of the key when its lastUsedAt is stale; a key revoked meanwhile is not written back. */
export async function noteApiKeyUse(record: ApiKeyRecord, now = Date.now()): Promise<void> {
  if (record.lastUsedAt !== undefined && now - record.lastUsedAt < LAST_USED_GRANULARITY_MS) return;
  await db
    .send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.apiKeyBySecretHash(record.secretHash),
        UpdateExpression: 'SET lastUsedAt = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': now },
      }),
    )
    .catch((error: Error) => {
      if (error.name !== 'ConditionalCheckFailedException') throw error;
    });
}

export async function putApiKey(record: ApiKeyRecord): Promise<void> {
  try {
    await transactWrite(apiKeyCreation(record));
  } catch (error) {
    if (conditionFailed(error, 'userGone')) throw badRequest(`user ${record.userId} does not exist`);
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

/**
 * The organization each key is narrowed to (by its application), by key id; absent: the key reaches its user's whole
 * account (docs/IDENTITY.md "Keys of an organization's members"). A key narrowed to an application that no longer
 * exists reaches no organization: it maps to ''.
 */
export async function keyOrganizations(records: ApiKeyRecord[]): Promise<Map<string, string>> {
  const unrecorded = [
    ...new Set(records.filter((r) => r.applicationId && !r.organizationId).map((r) => r.applicationId!)),
  ];
  const apps = unrecorded.length
    ? await batchGet(
        unrecorded.map((appId) => keys.application(appId)),
        ['applicationId', 'organizationId'],
      )
    : [];
  const orgOfApp = new Map(apps.map((item) => [String(item.applicationId), String(item.organizationId)]));
  return new Map(
    records
      .filter((r) => r.applicationId)
      .map((r) => [r.keyId, r.organizationId ?? orgOfApp.get(r.applicationId!) ?? '']),
  );
}
