import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { config } from '../config.ts';

// The overview's coverage counters of data written before them (npm run migrate, npm start on an older data
// directory): each environment is counted by the migration's environment step (countEnvironmentCoverage); once all
// are, each organization is marked (the overview then reads its counters) and the table too (npm start then skips
// this backfill).

/** Marks every organization's coverage counters complete, then the table. Idempotent. */
export async function markCoverageCounted(tableName = config.tableName): Promise<void> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'entity = :entity',
        ExpressionAttributeValues: { ':entity': 'organization' },
        ProjectionExpression: 'organizationId',
        ExclusiveStartKey,
      }),
    );
    for (const org of page.Items ?? [])
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.coverageReady(org.organizationId as string), entity: 'coverageReady' },
        }),
      );
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  await db.send(
    new PutCommand({ TableName: tableName, Item: { ...keys.tableCoverageCounted(), entity: 'migration' } }),
  );
}
