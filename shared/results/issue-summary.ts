import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { batchGet } from '../db/query.ts';
import { fromItem } from '../db/items.ts';
import type { TransactItem } from '../db/transactions.ts';
import type { Outcome } from '../db/backfill.ts';
import { type FindingRecord, type OpenIssues, TOOLS_KEPT, HAWKSCAN_STREAM } from './model.ts';
import { NO_OPEN_ISSUES, type OpenIssueCounts } from '../applications/model.ts';
import { findingsOfEnvironment } from './finding-repository.ts';

// An environment's open issues now (docs/DATA-MODEL.md, Findings report; docs/ISSUES.md, The findings report): a
// projection of its finding records, written whole by each publication of its scans (the completion's and the
// import's transaction, which read every record of the environment and are conditioned on its trends' version), so
// that the findings report counts issues and names their tools without reading the environment's findings. A write
// that changes whether a finding is open without reading the others (a retest's fix) marks it stale: the report then
// reads that environment's findings, as before, until its next publication.

type SummaryFinding = Pick<FindingRecord, 'findingHash' | 'issueId' | 'stream' | 'fixedAt' | 'verifiedFixedAt'>;

/** Open as the report counts it: neither fixed nor verified fixed. */
const isOpen = (f: SummaryFinding) => f.fixedAt === undefined && f.verifiedFixedAt === undefined;

type CountedFinding = SummaryFinding & Pick<FindingRecord, 'severity'>;
const RANK: Record<string, number> = { High: 3, Medium: 2, Low: 1 };
const SEVERITY_FIELD = [undefined, 'openIssuesLow', 'openIssuesMedium', 'openIssuesHigh'] as const;

/**
 * An environment's open issues by severity (EnvironmentRecord.openIssues*; docs/GOVERNANCE.md, The overview): the
 * issues openIssuesOf counts, each once in the highest risk severity of its open findings (an issue whose open
 * findings are all Info counts in none). From all its finding records, as the summary.
 */
export function openIssueCountsOf(findings: Iterable<CountedFinding>): OpenIssueCounts {
  const rank = new Map<string, number>();
  for (const f of findings) {
    if (!isOpen(f)) continue;
    const id = f.issueId ?? f.findingHash;
    rank.set(id, Math.max(rank.get(id) ?? 0, RANK[f.severity] ?? 0));
  }
  const counts = { ...NO_OPEN_ISSUES };
  for (const r of rank.values()) {
    const field = SEVERITY_FIELD[r];
    if (field) counts[field]++;
  }
  return counts;
}

/**
 * The change of the open issues by severity that one issue's findings make from `before` to `after` (each all the
 * findings of that issue in the environment): what a write that changes some of them moves the counts by.
 */
export function issueCountsChange(
  counts: OpenIssueCounts,
  before: Iterable<CountedFinding>,
  after: Iterable<CountedFinding>,
): OpenIssueCounts {
  const [was, is] = [openIssueCountsOf(before), openIssueCountsOf(after)];
  return Object.fromEntries(
    Object.entries(counts).map(([field, n]) => [
      field,
      n - was[field as keyof OpenIssueCounts] + is[field as keyof OpenIssueCounts],
    ]),
  ) as unknown as OpenIssueCounts;
}

/** The summary of an environment's finding records (all of them, as readers resolve them). */
export function openIssuesOf(findings: Iterable<SummaryFinding>): OpenIssues {
  const byIssue = new Map<string, Set<string>>();
  for (const f of findings) {
    if (!isOpen(f)) continue;
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
  return new Map(
    items.map((item) => [String(item.sk).split('#')[1]!, fromItem<OpenIssues & { sk: string }>(item)!] as const),
  );
}

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
