import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { config } from '../config.ts';
import { forEveryOrganization } from '../db/backfill.ts';

// The overview's coverage counters of data written before them (npm run migrate, npm start on an older data
// directory): each environment is counted by the migration's environment step (countEnvironmentCoverage); once all
// are, each organization is marked (the overview then reads its counters) and the table too (npm start then skips
// this backfill).

/** Marks one organization's coverage counters complete (its environments all counted). Idempotent. */
export const markOrganizationCoverageCounted = (orgId: string, tableName = config.tableName) =>
  db.send(new PutCommand({ TableName: tableName, Item: { ...keys.coverageReady(orgId), entity: 'coverageReady' } }));

/** Marks every organization's coverage counters complete, then the table. Idempotent. */
export async function markCoverageCounted(tableName = config.tableName): Promise<void> {
  await forEveryOrganization(tableName, (orgId) => markOrganizationCoverageCounted(orgId, tableName));
  await db.send(
    new PutCommand({ TableName: tableName, Item: { ...keys.tableCoverageCounted(), entity: 'migration' } }),
  );
}
