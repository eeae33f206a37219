import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { batchGet, batchPut, inParallel, queryItems } from '../db/query.ts';
import { config } from '../config.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { Severity } from '../scans/inputs.ts';
import type { TriageStatus } from './statuses.ts';

// Findings of an environment and their triage rules (docs/DATA-MODEL.md, Findings).

/** One finding of an environment (by hash), as its scans saw it. Written when a scan that reported it ends. */
export interface FindingRecord {
  findingHash: string;
  pluginId: string;
  requestMethod: string;
  /** The normalized path (finding-identity.ts). */
  path: string;
  param: string;
  /** One literal URI of the finding, from the last scan that saw it. */
  uri: string;
  severity: Severity;
  /** ms: start of the first and of the last scan that reported it. */
  firstSeen: number;
  lastSeen: number;
  lastScanId: string;
  /** Its URIs in lastScanId (literal URIs that differ only in id-like segments are one finding). */
  lastScanUris: number;
  /** The completion (or import) request that wrote it (FindingsBefore.attempt): restoreFindings reverts only its own. */
  recordedBy?: string;
}

export interface RuleHistoryEntry {
  operation: 'CREATE' | 'UPDATE';
  oldResult: TriageStatus;
  newResult: TriageStatus;
  note: string;
  userId: string;
  timestamp: number;
}

/** The triage of a finding: applies to it in its environment's last scan and every later scan. */
export interface TriageRule {
  findingHash: string;
  status: TriageStatus;
  note: string;
  userId: string;
  /** ms of the last change. */
  updatedAt: number;
  /** Every change conditions on the version it read. */
  version: number;
  /** Oldest first; at most MAX_RULE_HISTORY entries (the oldest are dropped). */
  history: RuleHistoryEntry[];
}

export const MAX_RULE_HISTORY = 200;

type EnvRef = { applicationId: string; environmentId: string };

export async function getFinding(env: EnvRef, findingHash: string): Promise<FindingRecord | undefined> {
  const out = await db.send(
    new GetCommand({
      TableName: config.tableName,
      Key: keys.finding(env.applicationId, env.environmentId, findingHash),
      ConsistentRead: true,
    }),
  );
  return fromItem<FindingRecord>(out.Item);
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
  for await (const item of queryItems({ partition: pk, skPrefix, attributes, pageLimit: 1000 }))
    yield fromItem<Partial<FindingRecord>>(item)!;
}

/** The environment's triage rules by finding hash (only triaged or commented findings have one). */
export async function rulesOfEnvironment(env: EnvRef): Promise<Map<string, TriageRule>> {
  const { pk, skPrefix } = keys.triageRulesOfEnvironment(env.applicationId, env.environmentId);
  const rules = new Map<string, TriageRule>();
  for await (const item of queryItems({ partition: pk, skPrefix })) {
    const rule = fromItem<TriageRule>(item)!;
    rules.set(rule.findingHash, rule);
  }
  return rules;
}

/** The rules of these findings (by hash), for a page of URIs. */
export async function rulesOf(env: EnvRef, hashes: string[]): Promise<Map<string, TriageRule>> {
  const unique = [...new Set(hashes)];
  const items = await batchGet(unique.map((h) => keys.triageRule(env.applicationId, env.environmentId, h)));
  return new Map(items.map((item) => fromItem<TriageRule>(item)!).map((rule) => [rule.findingHash, rule]));
}

/**
 * Records what a scan saw, marked as written by `before.attempt` (not atomic, idempotent: written before the scan's
 * completion commits; see findingsBefore).
 */
export async function recordFindings(env: EnvRef, findings: FindingRecord[], before: FindingsBefore): Promise<void> {
  await batchPut(
    findings.map((f) => ({
      ...keys.finding(env.applicationId, env.environmentId, f.findingHash),
      entity: 'finding',
      ...f,
      recordedBy: before.attempt,
    })),
  );
}

/**
 * The environment's records of these findings as they are before a scan records its own (recordFindings runs before
 * the scan's completion commits): what restoreFindings puts back if that commit does not happen.
 */
export interface FindingsBefore {
  scanId: string;
  /** This request's mark on the records it writes (recordedBy), so that its restore leaves other requests' records. */
  attempt: string;
  /** Records that existed, as they were. */
  previous: FindingRecord[];
  /** Hashes that had no record. */
  added: string[];
}

/** What these findings' records are now, added to what is `known` (the same request's earlier attempts). */
export async function findingsBefore(
  scan: EnvRef & { scanId: string },
  hashes: string[],
  known?: FindingsBefore,
): Promise<FindingsBefore> {
  const seen = new Set([...(known?.previous.map((f) => f.findingHash) ?? []), ...(known?.added ?? [])]);
  const fresh = [...new Set(hashes)].filter((h) => !seen.has(h));
  const items = await batchGet(fresh.map((h) => keys.finding(scan.applicationId, scan.environmentId, h)));
  const previous = items.map((item) => fromItem<FindingRecord>(item)!);
  const existed = new Set(previous.map((f) => f.findingHash));
  return {
    scanId: scan.scanId,
    attempt: known?.attempt ?? randomUUID(),
    previous: [...(known?.previous ?? []), ...previous],
    added: [...(known?.added ?? []), ...fresh.filter((h) => !existed.has(h))],
  };
}

/**
 * Puts the finding records back as they were before a request whose scan did not commit recorded its own: each only
 * while it is still the one this request wrote (recordedBy), so a record another request has written since (a
 * concurrent completion of the same scan, a later scan) is kept and a record deleted since (the environment's
 * delete) is not recreated. A completion first calls scanFindingsRestoreStart (shared/scans/repository.ts).
 */
export async function restoreFindings(env: EnvRef, before: FindingsBefore): Promise<void> {
  const stillOurs = {
    ConditionExpression: 'recordedBy = :attempt',
    ExpressionAttributeValues: { ':attempt': before.attempt },
  };
  const write = async (send: () => Promise<unknown>) => {
    try {
      await send();
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  };
  await inParallel(before.previous, 32, (f) =>
    write(() =>
      db.send(
        new PutCommand({
          TableName: config.tableName,
          Item: { ...keys.finding(env.applicationId, env.environmentId, f.findingHash), entity: 'finding', ...f },
          ...stillOurs,
        }),
      ),
    ),
  );
  await inParallel(before.added, 32, (hash) =>
    write(() =>
      db.send(
        new DeleteCommand({
          TableName: config.tableName,
          Key: keys.finding(env.applicationId, env.environmentId, hash),
          ...stillOurs,
        }),
      ),
    ),
  );
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

/** Writes a finding's rule, conditioned on the version read (`undefined`: it had none). */
export function triageRuleWrite(env: EnvRef, rule: TriageRule, readVersion: number | undefined): TransactItem {
  return {
    Put: {
      TableName: config.tableName,
      Item: {
        ...keys.triageRule(env.applicationId, env.environmentId, rule.findingHash),
        entity: 'triageRule',
        ...rule,
      },
      ConditionExpression: readVersion === undefined ? 'attribute_not_exists(pk)' : 'version = :version',
      ExpressionAttributeValues: readVersion === undefined ? undefined : { ':version': readVersion },
    },
  };
}

/** One more triage change in the environment (see triageVersionCheck). */
export function triageVersionIncrement(env: EnvRef): TransactItem {
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.triageVersion(env.applicationId, env.environmentId),
      UpdateExpression: 'SET entity = :entity ADD version :one',
      ExpressionAttributeValues: { ':entity': 'triageVersion', ':one': 1 },
    },
  };
}
