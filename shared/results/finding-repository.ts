import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem, named } from '../db/items.ts';
import {
  batchGet,
  batchPut,
  deleteFound,
  inParallel,
  prefixRange,
  queryAll,
  queryItems,
  untilAborted,
} from '../db/query.ts';
import { config } from '../config.ts';
import { logger } from '../context/logger.ts';
import { MAX_SWEPT_APPLICATIONS } from '../limits.ts';
import type { TransactItem } from '../db/transactions.ts';
import {
  type FindingRecord,
  type IssueDetection,
  type PendingFindings,
  type TriageRule,
  type FindingsBefore,
  type SharedIssues,
  mayBeShared,
  resolvedFinding,
} from './model.ts';

// Findings of an environment and their triage rules (docs/DATA-MODEL.md, Findings).

type EnvRef = { applicationId: string; environmentId: string };

export async function getFinding(env: EnvRef, findingHash: string): Promise<FindingRecord | undefined> {
  const out = await db.send(
    new GetCommand({
      TableName: config.tableName,
      Key: keys.finding(env.applicationId, env.environmentId, findingHash),
      ConsistentRead: true,
    }),
  );
  return resolvedFinding(fromItem<FindingRecord>(out.Item), await pendingAttempts(env));
}

/** The ids of the application's pending writes (usually none: one Query of an empty range). */
export async function pendingAttempts(env: Pick<EnvRef, 'applicationId'>): Promise<Set<string>> {
  const { pk, skPrefix } = keys.pendingFindingsOfApplication(env.applicationId);
  const items = await queryAll({ partition: pk, ...prefixRange(skPrefix), attributes: ['attempt'], consistent: true });
  return new Set(items.map((item) => item.attempt as string));
}

export async function getTriageRule(env: EnvRef, findingHash: string): Promise<TriageRule | undefined> {
  const out = await db.send(
    new GetCommand({
      TableName: config.tableName,
      Key: keys.triageRule(env.applicationId, env.environmentId, findingHash),
      ConsistentRead: true,
    }),
  );
  return fromItem<TriageRule>(out.Item);
}

/** The environment's triage-change counter (0 before the first triage). */
export async function getTriageVersion(env: EnvRef): Promise<number> {
  const out = await db.send(
    new GetCommand({
      TableName: config.tableName,
      Key: keys.triageVersion(env.applicationId, env.environmentId),
      ConsistentRead: true,
    }),
  );
  return Number(out.Item?.version ?? 0);
}

/** Every finding the environment's scans have reported, read lazily (optionally only some attributes). */
export async function* findingsOfEnvironment(
  env: EnvRef,
  attributes?: (keyof FindingRecord)[],
): AsyncGenerator<Partial<FindingRecord>> {
  const { pk, skPrefix } = keys.findingsOfEnvironment(env.applicationId, env.environmentId);
  const pending = await pendingAttempts(env);
  const read = attributes && [...new Set([...attributes, 'recordedBy' as const, 'previous' as const])];
  for await (const item of queryItems({ partition: pk, skPrefix, attributes: read, pageLimit: 1000 })) {
    const finding = resolvedFinding(fromItem<Partial<FindingRecord>>(item)!, pending);
    if (finding) yield finding;
  }
}

/** The environment's triage rules by finding hash (only triaged or commented findings have one). */
export async function rulesOfEnvironment(env: EnvRef): Promise<Map<string, TriageRule>> {
  const { pk, skPrefix } = keys.triageRulesOfEnvironment(env.applicationId, env.environmentId);
  const rules = new Map<string, TriageRule>();
  for await (const item of queryItems({ partition: pk, ...prefixRange(skPrefix) })) {
    const rule = fromItem<TriageRule>(item)!;
    rules.set(rule.findingHash, rule);
  }
  return rules;
}

/** The issue of each of these findings (by hash; none for a finding recorded before issues), for a page of URIs. */
export async function issuesOfFindings(
  env: EnvRef,
  hashes: string[],
): Promise<Pick<FindingRecord, 'findingHash' | 'issueId'>[]> {
  const unique = [...new Set(hashes)];
  if (unique.length === 0) return [];
  const items = await batchGet(
    unique.map((h) => keys.finding(env.applicationId, env.environmentId, h)),
    ['findingHash', 'issueId'],
  );
  return items.map((item) => fromItem<Pick<FindingRecord, 'findingHash' | 'issueId'>>(item)!);
}

/** The rules of these findings (by hash), for a page of URIs (`consistent`: as a write conditioned on them reads). */
export async function rulesOf(env: EnvRef, hashes: string[], consistent = false): Promise<Map<string, TriageRule>> {
  const unique = [...new Set(hashes)];
  const items = await batchGet(
    unique.map((h) => keys.triageRule(env.applicationId, env.environmentId, h)),
    undefined,
    consistent,
  );
  return new Map(items.map((item) => fromItem<TriageRule>(item)!).map((rule) => [rule.findingHash, rule]));
}

/**
 * Records what a scan saw, marked as written by `before.attempt` (not atomic, idempotent: written before the scan's
 * completion commits; see findingsBefore).
 */
export async function recordFindings(
  env: EnvRef,
  findings: FindingRecord[],
  before: FindingsBefore,
  signal?: AbortSignal,
  write: { concurrency?: number; beforeCall?: (sent: number) => void } = {},
): Promise<void> {
  // One level deep: what a record replaced, never what that one replaced in turn.
  const previous = new Map(before.previous.map(({ previous: _older, ...f }) => [f.findingHash, f]));
  await batchPut(
    findings.map((f) => ({
      ...keys.finding(env.applicationId, env.environmentId, f.findingHash),
      entity: 'finding',
      ...f,
      recordedBy: before.attempt,
      previous: previous.get(f.findingHash) ?? null,
    })),
    write.concurrency ?? 8,
    signal,
    write.beforeCall,
  );
  await recordDetections(env, findings, signal);
}

/**
 * The issue detection items of these findings (docs/ISSUES.md): idempotent, never removed with a failed scan's
 * records (a detection whose finding record is absent is skipped by its readers).
 */
export async function recordDetections(
  env: EnvRef,
  findings: Pick<FindingRecord, 'issueId' | 'findingHash' | 'stream'>[],
  signal?: AbortSignal,
): Promise<void> {
  await batchPut(
    findings
      .filter((f) => f.issueId)
      .map((f) => ({
        ...keys.issueDetection(env.applicationId, env.environmentId, f.issueId!, f.findingHash),
        entity: 'issueDetection',
        issueId: f.issueId!,
        findingHash: f.findingHash,
        stream: f.stream ?? '',
      })),
    8,
    signal,
  );
}

/** The detections of an issue (each finding of it, by hash). */
export async function detectionsOfIssue(env: EnvRef, issueId: string): Promise<IssueDetection[]> {
  const { pk, skPrefix } = keys.detectionsOfIssue(env.applicationId, env.environmentId, issueId);
  const items = await queryAll({ partition: pk, ...prefixRange(skPrefix), consistent: true });
  return items.map((item) => fromItem<IssueDetection>(item)!);
}

/**
 * Which issues of the environment may have another detection than a finding's own, by its shared issues' summary
 * (keys.sharedIssues, one strongly consistent read; model.ts mayBeShared): an issue it rules out has no detection
 * that readers see but that finding's, so its detections need no Query.
 */
export async function sharedIssuesTest(env: EnvRef): Promise<(issueId: string) => boolean> {
  const [item] = await batchGet([keys.sharedIssues(env.applicationId, env.environmentId)], undefined, true);
  return mayBeShared(fromItem<SharedIssues>(item));
}

/** What these findings' records are now, added to what is `known` (the same request's earlier attempts). */
export async function findingsBefore(
  scan: EnvRef & { scanId: string },
  hashes: string[],
  known?: FindingsBefore,
  attempt = known?.attempt ?? randomUUID(),
): Promise<FindingsBefore> {
  const seen = new Set([...(known?.previous.map((f) => f.findingHash) ?? []), ...(known?.added ?? [])]);
  const fresh = [...new Set(hashes)].filter((h) => !seen.has(h));
  const [items, pending] = await Promise.all([
    batchGet(fresh.map((h) => keys.finding(scan.applicationId, scan.environmentId, h))),
    pendingAttempts(scan),
  ]);
  // As readers see them (a crashed request's records read as they were before it).
  const previous = items.flatMap((item) => resolvedFinding(fromItem<FindingRecord>(item)!, pending) ?? []);
  const existed = new Set(previous.map((f) => f.findingHash));
  return {
    scanId: scan.scanId,
    attempt,
    previous: [...(known?.previous ?? []), ...previous],
    added: [...(known?.added ?? []), ...fresh.filter((h) => !existed.has(h))],
  };
}

/**
 * Puts the finding records back as they were before a request whose scan did not commit recorded its own: each only
 * while it is still the one this request wrote (recordedBy), so a record another request has written since (a
 * concurrent completion of the same scan, a later scan) is kept and a record deleted since (the environment's
 * delete) is not recreated. A completion first calls scanFindingsRestoreStart (shared/results/scan-repository.ts).
 */
export async function restoreFindings(env: EnvRef, before: FindingsBefore, signal?: AbortSignal): Promise<void> {
  const stillOurs = {
    ConditionExpression: 'recordedBy = :attempt',
    ExpressionAttributeValues: { ':attempt': before.attempt },
  };
  const write = async (send: (abortSignal?: AbortSignal) => Promise<unknown>) => {
    try {
      await untilAborted(signal, send);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  };
  await inParallel(before.previous, 32, (f) =>
    write((abortSignal) =>
      db.send(
        new PutCommand({
          TableName: config.tableName,
          Item: { ...keys.finding(env.applicationId, env.environmentId, f.findingHash), entity: 'finding', ...f },
          ...stillOurs,
        }),
        { abortSignal },
      ),
    ),
  );
  await inParallel(before.added, 32, (hash) =>
    write((abortSignal) =>
      db.send(
        new DeleteCommand({
          TableName: config.tableName,
          Key: keys.finding(env.applicationId, env.environmentId, hash),
          ...stillOurs,
        }),
        { abortSignal },
      ),
    ),
  );
}

/** Registers a pending write before its first item is written (see PendingFindings). */
export async function pendingFindingsStart(appId: string, pending: PendingFindings): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: config.tableName,
      Item: {
        ...keys.pendingFindings(appId, pending.attempt),
        ...keys.pendingFindingsByExpiry(appId, pending.attempt, pending.expiresAt),
        entity: 'pendingFindings',
        ...pending,
      },
    }),
  );
}

/** In the publishing transaction: the pending write ends, unless a sweep has taken it over (then nothing commits). */
export function pendingFindingsEnd(appId: string, attempt: string): TransactItem {
  return named('pendingSwept', {
    Delete: {
      TableName: config.tableName,
      Key: keys.pendingFindings(appId, attempt),
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(sweeping)',
    },
  });
}

/** After its records were put back (and an import's items removed): the pending write is over. */
export async function pendingFindingsRemove(appId: string, attempt: string, signal?: AbortSignal): Promise<void> {
  await untilAborted(signal, (abortSignal) =>
    db.send(new DeleteCommand({ TableName: config.tableName, Key: keys.pendingFindings(appId, attempt) }), {
      abortSignal,
    }),
  );
}

/**
 * Puts back what expired pending writes of the application left (docs/DATA-MODEL.md, Findings, Unpublished
 * writes): each is first marked `sweeping` (so its request, were it still running, can no longer publish), then its
 * records are put back as they were (each while still its own), an import's unpublished scan items are removed, and
 * the pending item goes. Idempotent: an interrupted sweep is resumed by the next. `signal` bounds the time the
 * calling request gives it: a sweep cut there, or failing, is left to the next request (its records stay hidden
 * meanwhile), and the caller goes on. Returns the sweeps completed.
 */
export async function sweepPendingFindings(appId: string, now: number, signal?: AbortSignal): Promise<number> {
  let swept = 0;
  try {
    const { pk, skPrefix } = keys.pendingFindingsOfApplication(appId);
    const expired = (await untilAborted(signal, () => queryAll({ partition: pk, skPrefix, consistent: true })))
      .map((item) => fromItem<PendingFindings>(item)!)
      .filter((p) => p.expiresAt < now);
    for (const pending of expired) if (await sweepOne(appId, pending, signal)) swept++;
  } catch (error) {
    logger.warn('sweep of stopped requests left to the next request', { appId, cut: !!signal?.aborted, error });
  }
  return swept;
}

/**
 * The scheduled sweep: what stopped requests left in any application, found through the expiry index, each
 * application swept as an import there would (sweepPendingFindings) until `signal` stops it; the next run takes the
 * rest. Without it, a stopped request's items would wait for the next import or completion in its application.
 * Returns the applications visited and the pending writes swept.
 */
export async function sweepStoppedWrites(
  now: number,
  signal: AbortSignal,
): Promise<{ applications: number; swept: number }> {
  const query = keys.expiredPendingFindings(now);
  const applications = new Set<string>();
  let swept = 0;
  for await (const item of queryItems({ ...query, attributes: ['pk'], pageLimit: MAX_SWEPT_APPLICATIONS })) {
    if (signal.aborted) break;
    const appId = (item.pk as string).slice('APP#'.length);
    if (applications.has(appId)) continue;
    if (applications.size >= MAX_SWEPT_APPLICATIONS) break;
    applications.add(appId);
    swept += await sweepPendingFindings(appId, now, signal);
  }
  return { applications: applications.size, swept };
}

async function sweepOne(appId: string, pending: PendingFindings, signal?: AbortSignal): Promise<boolean> {
  const { pk } = keys.pendingFindingsOfApplication(appId);
  try {
    await untilAborted(signal, (abortSignal) =>
      db.send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: keys.pendingFindings(appId, pending.attempt),
          UpdateExpression: 'SET sweeping = :true',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':true': true },
        }),
        { abortSignal },
      ),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false; // ended meanwhile
    throw error;
  }
  const env = { applicationId: appId, environmentId: pending.environmentId };
  const records = await untilAborted(signal, async () => {
    const own: FindingRecord[] = [];
    for await (const item of queryItems({
      partition: pk,
      skPrefix: keys.findingsOfEnvironment(appId, env.environmentId).skPrefix,
      pageLimit: 1000,
    })) {
      signal?.throwIfAborted();
      const record = fromItem<FindingRecord>(item)!;
      if (record.recordedBy === pending.attempt) own.push(record);
    }
    return own;
  });
  await restoreFindings(
    env,
    {
      scanId: pending.scanId,
      attempt: pending.attempt,
      previous: records.flatMap((r) => (r.previous ? [r.previous] : [])),
      added: records.filter((r) => !r.previous).map((r) => r.findingHash),
    },
    signal,
  );
  if (pending.kind === 'import') {
    const data = keys.dataOfScan(appId, env.environmentId, pending.scanId);
    await deleteFound({ partition: data.pk, skPrefix: data.skPrefix }, undefined, 8, signal);
  }
  await pendingFindingsRemove(appId, pending.attempt, signal);
  return true;
}

/** Fails the transaction if a triage changed the environment's rules since `version` was read. */
export function triageVersionCheck(env: EnvRef, version: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: config.tableName,
      Key: keys.triageVersion(env.applicationId, env.environmentId),
      ConditionExpression: version === 0 ? 'attribute_not_exists(version)' : 'version = :version',
      ExpressionAttributeValues: version === 0 ? undefined : { ':version': version },
    },
  };
}
