import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { tables, type TableDefinition } from '../../shared/db/tables.ts';
import { config } from '../../shared/config.ts';
import { s3 } from '../../shared/storage/s3.ts';

// Creates the tables and the bucket if absent, from the same definitions the CDK stack deploys.
const physicalName: Record<TableDefinition['id'], () => string> = {
  MainTable: () => config.tableName,
  RateLimitTable: () => config.rateLimitTableName,
};
/** Where each table lives (`npm start` keeps the rate-limit table in its own in-memory DynamoDB Local). */
const endpointOf: Record<TableDefinition['id'], () => string | undefined> = {
  MainTable: () => config.dynamodbEndpoint,
  RateLimitTable: () => config.rateLimitDynamodbEndpoint,
};

export function createTableInput(table: TableDefinition, tableName: string): CreateTableCommandInput {
  const attributes = new Map<string, 'S' | 'N'>();
  for (const key of [
    table.partitionKey,
    table.sortKey,
    ...table.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  ]) {
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
          Projection: index.include
            ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: index.include }
            : { ProjectionType: 'ALL' as const },
        }))
      : undefined,
  };
}

/** String attributes in the low-level client's form. */
const attributes = (item: Record<string, string>) =>
  Object.fromEntries(Object.entries(item).map(([k, v]) => [k, { S: v }]));

/**
 * A data directory from an earlier version whose table lacks indexes added since (the list indexes of
 * docs/DATA-MODEL.md): its items get the index keys today's write paths give new items (the backfill of `npm run
 * migrate`), then the indexes are created, which DynamoDB Local fills from those keys. In that order, an interrupted
 * upgrade is simply done again at the next start (the indexes are still missing; items already backfilled are only
 * read).
 */
export async function addMissingIndexes(
  client: DynamoDBClient,
  table: TableDefinition,
  tableName: string,
  log: (line: string) => void,
): Promise<void> {
  const existing = new Set(
    ((await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.GlobalSecondaryIndexes ?? []).map(
      (i) => i.IndexName,
    ),
  );
  const input = createTableInput(table, tableName);
  const missing = (input.GlobalSecondaryIndexes ?? []).filter((index) => !existing.has(index.IndexName));
  // The main table of a version before the health aggregates, or before stored configurations' credentials moved
  // into scan secrets, lacks that migration's marker (shared/applications/health-backfill.ts,
  // shared/scans/configuration-migration.ts).
  const { keys } = await import('../../shared/db/keys.ts');
  // ... or, of a version before tool streams, the streams' marker (shared/scans/stream-backfill.ts), or before
  // issues, the issues' marker (shared/scans/issue-backfill.ts), or before descriptions' routes, theirs
  // (shared/hosted-assets/repository.ts).
  const marked = async (key: Record<string, string>) =>
    !!(await client.send(new GetItemCommand({ TableName: tableName, Key: attributes(key), ConsistentRead: true })))
      .Item;
  const migrated =
    table.id !== 'MainTable' ||
    ((await marked(keys.tableHealthComplete())) &&
      (await marked(keys.tableCredentialsMoved())) &&
      (await marked(keys.tableStreamsAssigned())) &&
      (await marked(keys.tableIssuesAssigned())) &&
      (await marked(keys.tableOpenIssues())) &&
      (await marked(keys.tableDescriptionRoutes())) &&
      (await marked(keys.tableCoverageCounted())) &&
      (await marked(keys.tableRiskiest())));
  if (missing.length === 0 && migrated) return;
  log(
    missing.length
      ? `Table ${tableName} is from an earlier version: adding the index keys of its items, then the indexes ${missing.map((i) => i.IndexName).join(', ')} (once) ...`
      : `Table ${tableName} is from an earlier version: counting its applications in the health aggregates, moving its stored configurations' credentials into scan secrets and assigning its scans to tool streams (once) ...`,
  );
  const { backfillIndexKeys } = await import('../../shared/db/backfill.ts');
  const { tableMigration } = await import('../../shared/table-migration.ts');
  const summary = await backfillIndexKeys({
    ...tableMigration(tableName),
    onProgress: (s) =>
      log(`  ${s.scanned} items read, ${s.updated} updated (${s.segmentsDone} of ${s.segments} scan segments done)`),
  });
  if (summary.conflicts)
    throw new Error(
      `${summary.conflicts} items changed while their index keys were added: start again to finish the upgrade`,
    );
  for (const index of missing) {
    log(`  adding index ${index.IndexName} ...`);
    // One index is created at a time (DynamoDB refuses another while one is being created): wait for the last.
    await indexesActive(client, tableName);
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: input.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
  }
  await indexesActive(client, tableName);
  log(`Table ${tableName} upgraded: ${summary.updated} items given their index keys, ${missing.length} indexes added.`);
}

/** Waits (up to 2 minutes) until no index of the table is being created. */
async function indexesActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (
    const started = Date.now();
    Date.now() - started < 120_000;
    await new Promise((resolve) => setTimeout(resolve, 200))
  ) {
    const indexes =
      (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.GlobalSecondaryIndexes ?? [];
    if (indexes.every((i) => i.IndexStatus === undefined || i.IndexStatus === 'ACTIVE')) return;
  }
  throw new Error(
    `the indexes of table ${tableName} are still being created after 2 minutes: start again to finish the upgrade`,
  );
}

export async function provision(): Promise<void> {
  const clients = new Map<string | undefined, DynamoDBClient>();
  for (const table of tables) {
    const endpoint = endpointOf[table.id]();
    if (!clients.has(endpoint))
      clients.set(
        endpoint,
        new DynamoDBClient({
          region: config.region,
          endpoint,
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
      );
    const client = clients.get(endpoint)!;
    const tableName = physicalName[table.id]();
    try {
      await client.send(new CreateTableCommand(createTableInput(table, tableName)));
      if (table.id === 'MainTable') {
        // A new table has no data of an earlier version to migrate (health-backfill.ts, configuration-migration.ts,
        // stream-backfill.ts).
        const { keys } = await import('../../shared/db/keys.ts');
        for (const marker of [
          keys.tableHealthComplete(),
          keys.tableCredentialsMoved(),
          keys.tableStreamsAssigned(),
          keys.tableIssuesAssigned(),
          keys.tableOpenIssues(),
          keys.tableDescriptionRoutes(),
          keys.tableCoverageCounted(),
          keys.tableRiskiest(),
        ])
          await client.send(
            new PutItemCommand({ TableName: tableName, Item: attributes({ ...marker, entity: 'migration' }) }),
          );
      }
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
      await addMissingIndexes(client, table, tableName, (line) => process.stderr.write(`${line}\n`));
    }
  }
  for (const client of clients.values()) client.destroy();
  try {
    await (await s3()).send(new CreateBucketCommand({ Bucket: config.assetsBucket }));
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
  }
}
