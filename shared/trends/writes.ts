import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { collect, queryAll } from '../db/query.ts';
import { config } from '../config.ts';
import { fromItem } from '../db/items.ts';
import { derivedWrites } from '../db/entity-write.ts';
import type { TransactItem } from '../db/transactions.ts';
import { slaDaysResolver } from '../governance/sla-days.ts';
import { findingsOfEnvironment, rulesOfEnvironment } from '../results/finding-repository.ts';
import { type FindingRecord, type TriageRule, openIssueCountsOf } from '../results/model.ts';
import { fixedInStream } from '../results/streams.ts';
import type { OpenIssueCounts } from '../applications/model.ts';
import type { SlaPolicy } from '../governance/model.ts';
import { dayOf, isCurrent, type TrendTotal, type TrendsRead } from './model.ts';
import { envScope, appScope } from './projections/environment-trend-figures.ts';
import {
  applicationTrends,
  environmentPublication,
  environmentTrends,
  type EnvironmentPublication,
} from './entities.ts';
import type { EnvironmentRef, EnvironmentTrends } from './projections/environment-trend-figures.ts';

// The trend figures' reads and writes (docs/DATA-MODEL.md, Trends and Projections): each write reads what its
// projections need (the environment's total first, then the findings it derives from), and commits their items in
// its transaction: the environment's figures (environment-trend-figures.ts), conditioned on the total's version
// read, which every publication and the delete advance, so that concurrent writes of one environment are counted
// once each, never from a stale read; and its application's and organization's, netted over the write's
// environments; an application's delete (application-trend-figures.ts) takes it out of its organization's.

/** The environment's trend total as stored now (read before the findings its write derives from). */
export async function environmentTrendTotal(env: EnvironmentRef): Promise<TrendTotal> {
  const out = await db.send(
    new GetCommand({
      TableName: config.tableName,
      Key: keys.trendTotal(envScope(env)),
      ConsistentRead: true,
    }),
  );
  return fromItem<TrendTotal>(out.Item) ?? {};
}

/** The environment's TrendsRead from its total read before its findings (`read`). */
export async function trendsRead(env: EnvironmentRef, read: TrendTotal): Promise<TrendsRead> {
  if (read.version !== undefined) return { read, findings: new Map(), rules: new Map() };
  const [records, rules] = await Promise.all([
    collect(findingsOfEnvironment(env, ['findingHash', 'severity', 'fixedAt'])),
    rulesOfEnvironment(env),
  ]);
  return { read, findings: new Map((records as FindingRecord[]).map((f) => [f.findingHash, f])), rules };
}

/**
 * What the trends count of the environment when its `findings` have these rules (by hash; undefined: none), from
 * what was read (`from`): before a triage (the rules as read) or after it (`after`: its total's next version).
 */
export function environmentTrendsOf(
  from: TrendsRead,
  findings: ReadonlyMap<string, FindingRecord>,
  rules: ReadonlyMap<string, Pick<TriageRule, 'status' | 'history'> | undefined>,
  after: boolean,
): EnvironmentTrends {
  const all = new Map([...findings, ...[...from.findings].filter(([hash]) => !findings.has(hash))]);
  const counted = new Map(from.rules);
  for (const [hash, rule] of rules)
    if (rule) counted.set(hash, rule);
    else counted.delete(hash);
  const version = after ? (from.read.version ?? 1) : from.read.version;
  return { version, scannedDay: from.read.scannedDay, findings: all, rules: counted };
}

/**
 * What the trends of a retest's fix read (docs/HOSTED-SCANS.md, Retests): what they count of the environment, from
 * its total read before the finding (`read`), and the SLA days in force in it (the fix's due date).
 */
export async function retestFixRead(
  env: EnvironmentRef,
  read: TrendTotal,
): Promise<{ trends: TrendsRead; days: SlaPolicy['days'] }> {
  const [trends, daysOf] = await Promise.all([trendsRead(env, read), slaDaysResolver(env.organizationId, [env])]);
  return { trends, days: daysOf(env) };
}

/**
 * The trend part of a retest that found a current finding gone: what the trends count of the environment before and
 * after `was` is fixed as `is` (its rule unchanged), from what was read (`from`: retestFixRead); its projection
 * counts the fix with its time to fix and due date as for a scan's fix, conditioned on the total's version read.
 */
export function retestFixTrends(
  from: TrendsRead,
  was: FindingRecord,
  is: FindingRecord,
  rule: TriageRule | undefined,
): { before: EnvironmentTrends; after: EnvironmentTrends } {
  const [before, after] = [false, true].map((a) => environmentTrendsOf(from, new Map(), new Map(), a)) as [
    EnvironmentTrends,
    EnvironmentTrends,
  ];
  const rules = new Map(before.rules);
  if (rule) rules.set(was.findingHash, rule);
  return {
    before: { ...before, findings: new Map([...before.findings, [was.findingHash, was]]), rules },
    after: { ...after, findings: new Map([...before.findings, [is.findingHash, is]]), rules },
  };
}

/**
 * An environment's delete: its open findings and coverage leave its application's and organization's figures (from
 * its total, conditioned on the version read), and its total is marked deleted (the cascade removes its items).
 */
export async function environmentTrendRemoval(env: EnvironmentRef, now: number): Promise<TransactItem[]> {
  const read = await environmentTrendTotal(env);
  const before: EnvironmentTrends = {
    version: read.version,
    scannedDay: read.scannedDay,
    findings: new Map(),
    rules: new Map(),
    counted: read,
  };
  return derivedWrites(environmentTrends, before, undefined, { env, now });
}

/**
 * An application's delete: its open findings and its environments' coverage leave the organization's figures (the
 * application's total, conditioned on its `seq` read, and its environments' totals), and its total is marked
 * deleted, so no write of its environments adds to the organization afterwards.
 */
export async function applicationTrendRemoval(
  app: { organizationId: string; applicationId: string },
  now: number,
): Promise<TransactItem[]> {
  // Its environments as stored now (the delete is conditioned on their count).
  const { pk, skPrefix } = keys.environmentsOfApp(app.applicationId);
  const environmentIds = (
    await queryAll({ partition: pk, skPrefix, consistent: true, attributes: ['environmentId'] })
  ).map((item) => item.environmentId as string);
  const [totalItem, environments] = await Promise.all([
    db.send(
      new GetCommand({
        TableName: config.tableName,
        Key: keys.trendTotal(appScope(app)),
        ConsistentRead: true,
      }),
    ),
    Promise.all(
      environmentIds.map((environmentId) =>
        environmentTrendTotal({ organizationId: app.organizationId, applicationId: app.applicationId, environmentId }),
      ),
    ),
  ]);
  const before = { total: fromItem<TrendTotal>(totalItem.Item) ?? {}, environments };
  return derivedWrites(applicationTrends, before, undefined, { ...app, now });
}

/**
 * The trend part of a scan's publication in its environment: the records to write (the scan's, and the fixed ones
 * with `fixedAt`), the environment's open issues after them, and its trend projection from its records and rules as read with `found`
 * (findingsOfScan) to what they are with them, with its next version and latest scan day; the overdue check's entry
 * when an episode starts. `fixesStream`: the scan completed as the latest of its tool stream, named so: it decides
 * which of that stream's findings are fixed, and no other's (docs/DATA-MODEL.md, Tool streams).
 */
export async function publicationTrend(
  scan: EnvironmentRef,
  found: {
    findings: FindingRecord[];
    known: Map<string, FindingRecord>;
    rules: Map<string, TriageRule>;
    trend: TrendTotal;
  },
  fixesStream: string | undefined,
  now: number,
): Promise<{ records: FindingRecord[]; items: TransactItem[]; openIssues: OpenIssueCounts }> {
  const reported = new Set(found.findings.map((f) => f.findingHash));
  // Each current finding of the scan's stream that the scan does not report is fixed now.
  const missing = [...found.known.values()].filter((f) => isCurrent(f) && !reported.has(f.findingHash));
  const fixed = fixesStream === undefined ? [] : await fixedInStream(scan, fixesStream, missing, now);
  // The days that apply in this environment (its override, its application's, else the organization's).
  const policy = fixed.length ? { days: (await slaDaysResolver(scan.organizationId, [scan]))(scan) } : undefined;
  const records = [...found.findings, ...fixed];
  const findings = new Map([...found.known, ...records.map((f) => [f.findingHash, f] as const)]);
  // The overdue check follows the findings the scan reports, with their rules' statuses (docs/GOVERNANCE.md).
  const statuses = new Map([...found.rules].map(([hash, rule]) => [hash, rule.status]));
  const before: EnvironmentPublication = {
    trends: {
      version: found.trend.version,
      scannedDay: found.trend.scannedDay,
      findings: found.known,
      rules: found.rules,
    },
    overdue: { findings: found.known, statuses },
    findings: found.known,
  };
  const after: EnvironmentPublication = {
    trends: { version: (found.trend.version ?? 0) + 1, scannedDay: dayOf(now), findings, rules: found.rules },
    overdue: { findings: new Map(found.findings.map((f) => [f.findingHash, f])), statuses },
    findings,
  };
  return {
    records,
    // The environment's open issues by severity after it, from every record (its write carries them).
    openIssues: openIssueCountsOf(findings.values()),
    items: derivedWrites(environmentPublication, before, after, { env: scan, now, policy }),
  };
}
