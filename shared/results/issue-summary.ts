import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { batchGet } from '../db/query.ts';
import { fromItem } from '../db/items.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { Outcome } from '../db/backfill.ts';
import { type OpenIssues, type SummaryFinding, TOOLS_KEPT, HAWKSCAN_STREAM, isOpenFinding } from './model.ts';
import { findingsOfEnvironment } from './finding-repository.ts';

// An environment's open issues now (docs/DATA-MODEL.md, Findings report; docs/ISSUES.md, The findings report): a
// projection of its finding records, written whole by each publication of its scans (the completion's and the
// import's transaction, which read every record of the environment and are conditioned on its trends' version), so
// that the findings report counts issues and names their tools without reading the environment's findings. A write
// that changes whether a finding is open without reading the others (a retest's fix) marks it stale: the report then
// reads that environment's findings, as before, until its next publication.

/** The summary of an environment's finding records (all of them, as readers resolve them). */
export function openIssuesOf(findings: Iterable<SummaryFinding>): OpenIssues {
  const byIssue = new Map<string, Set<string>>();
  for (const f of findings) {
    if (!isOpenFinding(f)) continue;
    const id = f.issueId ?? f.findingHash;
    const set = byIssue.get(id) ?? new Set<string>();
    set.add(f.stream ?? HAWKSCAN_STREAM);
    byIssue.set(id, set);
  }
  const streams = [...new Set([...byIssue.values()].flatMap((s) => [...s]))].sort();
  return {
    count: byIssue.size,
    streams,
    ...(streams.length > 1 &&
      byIssue.size <= TOOLS_KEPT && {
        tools: Object.fromEntries([...byIssue].map(([id, set]) => [id, [...set].sort()])),
      }),
  };
}

type EnvRef = { applicationId: string; environmentId: string };

const itemOf = (env: EnvRef, summary: OpenIssues) => ({
  ...keys.openIssues(env.applicationId, env.environmentId),
  entity: 'openIssues',
  ...summary,
});

/** In a publication's transaction: the environment's summary from all its records after it. */
export function openIssuesPut(env: EnvRef, findings: Iterable<SummaryFinding>): TransactItem {
  return { Put: { TableName: config.tableName, Item: itemOf(env, openIssuesOf(findings)) } };
}

/** In a write that changes which findings are open without reading the others: the summary is stale. */
export function openIssuesStale(env: EnvRef): TransactItem {
  return { Put: { TableName: config.tableName, Item: itemOf(env, { count: 0, streams: [], stale: true }) } };
}

/** The summaries of these environments, by environment id (absent: none yet, or the environment has none). */
export async function openIssuesOfEnvironments(envs: EnvRef[]): Promise<Map<string, OpenIssues>> {
  const items = await batchGet(envs.map((env) => keys.openIssues(env.applicationId, env.environmentId)));
  return new Map(items.map((item) => [String(item.sk).split('#')[1]!, openIssuesOfItem(item)] as const));
}

/** The summary an item of keys.openIssues holds (read by key or among its environment's items). */
export const openIssuesOfItem = (item: Record<string, unknown>) => fromItem<OpenIssues & { sk: string }>(item)!;

/**
 * The upgrade's step (npm run migrate, npm start on older data): an environment with finding records and without a
 * summary gets one from them, unless a publication or a retest wrote one meanwhile (then that one stands).
 */
export async function assignOpenIssues(appId: string, envId: string): Promise<Outcome> {
  const env = { applicationId: appId, environmentId: envId };
  const [existing] = await batchGet([keys.openIssues(appId, envId)], ['pk']);
  if (existing) return 'current';
  const findings: SummaryFinding[] = [];
  for await (const f of findingsOfEnvironment(env, ['findingHash', 'issueId', 'stream', 'fixedAt', 'verifiedFixedAt']))
    findings.push(f as SummaryFinding);
  // Without records there is nothing to count: the report reads the (empty) records of such an environment.
  if (findings.length === 0) return 'current';
  try {
    await db.send(
      new PutCommand({
        TableName: config.tableName,
        Item: itemOf(env, openIssuesOf(findings)),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return 'updated';
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return 'current';
    throw error;
  }
}

/** The table's marker that every environment has its summary (npm start then skips this step). */
export async function markOpenIssuesAssigned(tableName = config.tableName): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName, Item: { ...keys.tableOpenIssues(), entity: 'migration' } }));
}
