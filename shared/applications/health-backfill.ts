import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { retryOnConflict, transactionConflict, type RetriesExhausted } from '../db/retry.ts';
import { transactWrite } from '../db/transactions.ts';
import { config } from '../config.ts';
import { applicationEnvironmentsChange, getApplication } from './application-repository.ts';
import { forEveryOrganization } from '../db/backfill.ts';

// The health aggregates of data written before they existed (npm run migrate, npm start on an older data directory):
// each application not counted yet is counted from its environments, then each organization is marked complete.

/**
 * Counts a live application written before the health aggregates in them: its figures from its environments, added
 * to its bucket and day counter by the same projections as every write, in one transaction conditioned on it still being uncounted (a write of the current
 * code that changes its health counts it first: this then finds it counted) and unchanged.
 */
export async function countApplicationHealth(
  appId: string,
  now = Date.now(),
): Promise<'updated' | 'current' | 'gone' | 'conflict'> {
  try {
    return await retryOnConflict({ conflict: transactionConflict() }, async () => {
      const app = await getApplication(appId);
      if (!app) return 'gone';
      if (app.healthVersion !== undefined) return 'current';
      // No change of environments: its figures recomputed from them all (application-figures.ts), with
      // what that adds to its bucket's sums and day counter (the application's projections).
      await transactWrite(await applicationEnvironmentsChange(app, [], now));
      return 'updated';
    });
  } catch (error) {
    // Lost every race: left uncounted, for the next run.
    if ((error as Partial<RetriesExhausted>).retryReason) return 'conflict';
    throw error;
  }
}

/**
 * Once every application is counted: marks each organization's aggregates complete (List Environments V2 then reads
 * them) and the table as migrated (npm start then skips this backfill). Idempotent.
 */
export async function markHealthComplete(tableName = config.tableName): Promise<void> {
  await forEveryOrganization(tableName, (orgId) =>
    db.send(new PutCommand({ TableName: tableName, Item: { ...keys.healthReady(orgId), entity: 'healthReady' } })),
  );
  await markTableHealthComplete(tableName);
}

/** The table's marker that every organization's aggregates are complete (a new table: at once). */
export async function markTableHealthComplete(tableName = config.tableName): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName, Item: { ...keys.tableHealthComplete(), entity: 'migration' } }));
}
