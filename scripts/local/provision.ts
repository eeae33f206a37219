import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { tables, type TableDefinition } from '../../shared/db/tables.ts';
import { config } from '../../shared/config.ts';
import { s3 } from '../../shared/storage/s3.ts';

// Creates the tables and the bucket if absent, from the same definitions the CDK stack deploys.
const physicalName: Record<TableDefinition['id'], () => string> = {
  MainTable: () => config.tableName,
  RateLimitTable: () => config.rateLimitTableName,
};

export function createTableInput(table: TableDefinition, tableName: string): CreateTableCommandInput {
  const attributes = new Map<string, 'S' | 'N'>();
  for (const key of [table.partitionKey, table.sortKey, ...table.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey])]) {
    if (key) attributes.set(key.name, key.type);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    KeySchema: [
      { AttributeName: table.partitionKey.name, KeyType: 'HASH' },
      ...(table.sortKey ? [{ AttributeName: table.sortKey.name, KeyType: 'RANGE' as const }] : []),
    ],
    GlobalSecondaryIndexes: table.globalSecondaryIndexes.length
      ? table.globalSecondaryIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
            { AttributeName: index.sortKey.name, KeyType: 'RANGE' as const },
          ],
          Projection: index.include ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: index.include } : { ProjectionType: 'ALL' as const },
        }))
      : undefined,
  };
}

/**
 * A data directory from an earlier version: indexes added since are created (DynamoDB Local fills them from the
 * items' attributes), and application and environment items get the list index keys added with them.
 */
async function addMissingIndexes(client: DynamoDBClient, table: TableDefinition, tableName: string): Promise<void> {
  const existing = new Set(((await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
  const input = createTableInput(table, tableName);
  const missing = (input.GlobalSecondaryIndexes ?? []).filter((index) => !existing.has(index.IndexName));
  if (missing.length === 0) return;
  for (const index of missing) {
    process.stderr.write(`Adding index ${index.IndexName} to ${tableName} (data from an earlier version) ...\n`);
    await client.send(new UpdateTableCommand({ TableName: tableName, AttributeDefinitions: input.AttributeDefinitions, GlobalSecondaryIndexUpdates: [{ Create: index }] }));
  }
  if (table.id === 'MainTable') await reindexListEntries(tableName);
}

/** Adds the list index keys (docs/DATA-MODEL.md) to application and environment items written before they existed. */
async function reindexListEntries(tableName: string): Promise<void> {
  const { db } = await import('../../shared/db/client.ts');
  const { listEntries } = await import('../../shared/applications/application-repository.ts');
  const { indexKeys } = await import('../../shared/applications/environment-repository.ts');
  const { keys } = await import('../../shared/db/keys.ts');
  let startKey: Record<string, unknown> | undefined;
  let updated = 0;
  do {
    const page = await db.send(
      new ScanCommand({ TableName: tableName, FilterExpression: 'entity IN (:app, :env)', ExpressionAttributeValues: { ':app': 'application', ':env': 'environment' }, ExclusiveStartKey: startKey }),
    );
    for (const item of page.Items ?? []) {
      const record = item as never;
      const entries: Record<string, unknown> =
        item.entity === 'environment'
          ? item.deleting ? {} : indexKeys(record)
          : item.deleting ? keys.deletingApplication(String(item.organizationId), String(item.applicationId)) : listEntries(record);
      const names = Object.keys(entries);
      if (names.length === 0) continue;
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: `SET ${names.map((n, i) => `#k${i} = :k${i}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#k${i}`, n])),
          ExpressionAttributeValues: Object.fromEntries(names.map((n, i) => [`:k${i}`, entries[n]])),
        }),
      );
      updated++;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  process.stderr.write(`Re-indexed ${updated} applications and environments.\n`);
}

export async function provision(): Promise<void> {
  const client = new DynamoDBClient({
    region: config.region,
    endpoint: config.dynamodbEndpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  for (const table of tables) {
    const tableName = physicalName[table.id]();
    try {
      await client.send(new CreateTableCommand(createTableInput(table, tableName)));
      if (table.timeToLiveAttribute) {
        await client.send(
          new UpdateTimeToLiveCommand({
            TableName: tableName,
            TimeToLiveSpecification: { AttributeName: table.timeToLiveAttribute, Enabled: true },
          }),
        );
      }
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
      await addMissingIndexes(client, table, tableName);
    }
  }
  client.destroy();
  try {
    await (await s3()).send(new CreateBucketCommand({ Bucket: config.assetsBucket }));
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
  }
}

