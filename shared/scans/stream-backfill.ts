import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { inParallel, queryItems } from '../db/query.ts';
import { retryOnConflict, transactionConflict, type RetriesExhausted } from '../db/retry.ts';
import { transactWrite } from '../db/transactions.ts';
import type { Outcome } from '../db/backfill.ts';
import { config } from '../config.ts';
import { environmentScanWrites, getEnvironment } from '../applications/environment-repository.ts';
import { getApplication } from '../applications/application-repository.ts';
import type { EnvironmentStreams } from '../applications/model.ts';
import { scansOfEnvironmentNewestFirst } from '../results/scan-repository.ts';
import { type FindingRecord, type ScanRecord, HAWKSCAN_STREAM, streamOf } from '../results/model.ts';
import { headOf } from './scans.ts';

// The tool streams of data written before them (npm run migrate, npm start on an older data directory;
// docs/DATA-MODEL.md, Tool streams): each scan of an environment gets its stream, each finding record its last
// scan's, and the environment its streams' latest scans, whose union its untriaged figures become.

/** Sets `stream` on an item that lacks it (a write of the current code may have set it first: then left). */
async function setStream(key: { pk: string; sk: string }, stream: string): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: key,
        UpdateExpression: 'SET #stream = :stream',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#stream)',
        ExpressionAttributeNames: { '#stream': 'stream' },
        ExpressionAttributeValues: { ':stream': stream },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** Each scan of the environment its stream; the streams' latest live scans, by stream. */
async function assignScans(
  appId: string,
  envId: string,
): Promise<{ heads: Map<string, ScanRecord>; of: Map<string, string> }> {
  const heads = new Map<string, ScanRecord>();
  const of = new Map<string, string>();
  const unassigned: ScanRecord[] = [];
  for await (const scan of scansOfEnvironmentNewestFirst(envId)) {
    if (scan.applicationId !== appId) continue;
    const stream = streamOf(scan);
    of.set(scan.scanId, stream);
    if (scan.stream === undefined) unassigned.push(scan);
    if (!scan.deleting && !heads.has(stream)) heads.set(stream, scan);
  }
  await inParallel(unassigned, 8, (scan) =>
    setStream(keys.scanRecord(appId, envId, scan.scanId), of.get(scan.scanId)!),
  );
  return { heads, of };
}

/** Each finding record of the environment its last scan's stream. */
async function assignFindings(appId: string, envId: string, streamOfScan: Map<string, string>): Promise<void> {
  const { pk, skPrefix } = keys.findingsOfEnvironment(appId, envId);
  const unassigned: Pick<FindingRecord, 'findingHash' | 'lastScanId'>[] = [];
  for await (const item of queryItems({
    partition: pk,
    skPrefix,
    attributes: ['findingHash', 'lastScanId', 'stream'],
  })) {
    const finding = fromItem<FindingRecord>(item)!;
    if (finding.stream === undefined) unassigned.push(finding);
  }
  await inParallel(unassigned, 8, (f) =>
    setStream(keys.finding(appId, envId, f.findingHash), streamOfScan.get(f.lastScanId) ?? HAWKSCAN_STREAM),
  );
}

/**
 * Assigns a live environment written before tool streams to them: its scans and finding records (idempotent), then,
 * in one transaction conditioned on the environment as read, its streams with its figures and its application's
 * health. An environment with streams is current.
 */
export async function assignEnvironmentStreams(appId: string, envId: string): Promise<Outcome> {
  try {
    return await retryOnConflict({ conflict: transactionConflict() }, async () => {
      const [env, app] = await Promise.all([getEnvironment(appId, envId), getApplication(appId)]);
      if (!env || !app) return 'gone'; // deleted, or its application's delete has started
      // Never scanned: it has no stream, and nothing to write.
      if (env.streams || !env.lastScanId) return 'current';
      const { heads, of } = await assignScans(appId, envId);
      await assignFindings(appId, envId, of);
      const streams: EnvironmentStreams = Object.fromEntries(
        [...heads].map(([stream, scan]) => [stream, headOf(scan)]),
      );
      await transactWrite(await environmentScanWrites(env, { streams }));
      return 'updated';
    });
  } catch (error) {
    // Lost every race: left unassigned, for the next run.
    if ((error as Partial<RetriesExhausted>).retryReason) return 'conflict';
    throw error;
  }
}

/** The table's marker that every environment has its tool streams (npm start then skips this step). */
export async function markStreamsAssigned(tableName = config.tableName): Promise<void> {
  await db.send(
    new PutCommand({ TableName: tableName, Item: { ...keys.tableStreamsAssigned(), entity: 'migration' } }),
  );
}
