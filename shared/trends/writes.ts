import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys, type TrendScopeRef } from '../db/keys.ts';
import { collect, queryAll } from '../db/query.ts';
import { config } from '../config.ts';
import { fromItem } from '../db/items.ts';
import type { TransactItem } from '../db/transactions.ts';
import { slaDaysResolver } from '../governance/sla-days.ts';
import { overdueWakePut, publicationWake } from '../governance/overdue.ts';
import {
  findingsOfEnvironment,
  rulesOfEnvironment,
  type FindingRecord,
  type TriageRule,
} from '../findings/repository.ts';
import {
  TrendChange,
  coverageRemoval,
  coverageScan,
  dayOf,
  isCurrent,
  isOpenStatus,
  publicationChange,
  severityOf,
  type Figures,
  type TrendField,
} from './figures.ts';

// The trend counters' writes (docs/DATA-MODEL.md, Trends): a change goes to the day items it names and to the
// scope's total, for the environment, its application and the organization, in the transaction of the write that
// causes it. The environment's total carries `version`, which every publication and the delete advance and every
// write of the environment's findings is conditioned on: the figures are derived from records read under it, so
// concurrent writes of one environment are counted once each, never from a stale read.

/** A scope's running total: every figure summed over all days, `seq` (writes), and for an environment its state. */
export interface TrendTotal extends Figures {
  seq?: number;
  /** Environment: advanced by each publication and by the delete. */
  version?: number;
  /** Environment: the UTC day of its latest published scan (coverage). */
  scannedDay?: number;
  /** Set by the environment's or application's delete: nothing more may be added. */
  deleted?: boolean;
}

export type EnvironmentRef = { organizationId: string; applicationId: string; environmentId: string };

const envScope = (env: EnvironmentRef): TrendScopeRef => ({
  orgId: env.organizationId,
  appId: env.applicationId,
  envId: env.environmentId,
});
const appScope = (env: Pick<EnvironmentRef, 'organizationId' | 'applicationId'>): TrendScopeRef => ({
  orgId: env.organizationId,
  appId: env.applicationId,
});
const orgScope = (orgId: string): TrendScopeRef => ({ orgId });

/** The environment's trend total as stored now (read before the findings its write derives from). */
export async function environmentTrendTotal(env: EnvironmentRef): Promise<TrendTotal> {
  const out = await db.send(
    new GetCommand({ TableName: config.tableName, Key: keys.trendTotal(envScope(env)), ConsistentRead: true }),
  );
  return fromItem<TrendTotal>(out.Item) ?? {};
}

interface TotalUpdate {
  set?: Record<string, unknown>;
  condition?: string;
  values?: Record<string, unknown>;
}

function scopeWrites(scope: TrendScopeRef, change: TrendChange, total: TotalUpdate = {}): TransactItem[] {
  const items: TransactItem[] = [];
  for (const [day, figures] of change.days) {
    const adds = addClauses(figures);
    if (!adds) continue;
    items.push({
      Update: {
        TableName: config.tableName,
        Key: keys.trendDay(scope, day),
        UpdateExpression: `SET entity = :entity, #day = :day ADD ${adds.clauses}`,
        ExpressionAttributeNames: { '#day': 'day', ...adds.names },
        ExpressionAttributeValues: { ':entity': 'trendDay', ':day': day, ...adds.values },
      },
    });
  }
  const adds = addClauses({ ...change.total(), seq: 1 } as Figures);
  const sets = Object.entries({ entity: 'trendTotal', ...total.set });
  items.push({
    Update: {
      TableName: config.tableName,
      Key: keys.trendTotal(scope),
      UpdateExpression: `SET ${sets.map((_, i) => `#s${i} = :s${i}`).join(', ')} ADD ${adds!.clauses}`,
      ...(total.condition && { ConditionExpression: total.condition }),
      ExpressionAttributeNames: { ...Object.fromEntries(sets.map(([name], i) => [`#s${i}`, name])), ...adds!.names },
      ExpressionAttributeValues: {
        ...Object.fromEntries(sets.map(([, value], i) => [`:s${i}`, value])),
        ...adds!.values,
        ...total.values,
      },
    },
  });
  return items;
}

function addClauses(figures: Figures) {
  const entries = Object.entries(figures).filter(([, v]) => v !== 0) as [TrendField | 'seq', number][];
  if (entries.length === 0) return undefined;
  return {
    clauses: entries.map((_, i) => `#a${i} :a${i}`).join(', '),
    names: Object.fromEntries(entries.map(([name], i) => [`#a${i}`, name])),
    values: Object.fromEntries(entries.map(([, value], i) => [`:a${i}`, value])),
  };
}

const versionIs = (total: TrendTotal) =>
  total.version === undefined
    ? { condition: 'attribute_not_exists(version)', values: {} }
    : { condition: 'version = :version', values: { ':version': total.version } };

const appLive = { condition: 'attribute_not_exists(deleted)' };

/** The change in the application's and the organization's figures (after the environment's own). */
function upperWrites(
  env: Pick<EnvironmentRef, 'organizationId' | 'applicationId'>,
  change: TrendChange,
): TransactItem[] {
  if (change.empty) return [];
  return [...scopeWrites(appScope(env), change, appLive), ...scopeWrites(orgScope(env.organizationId), change)];
}

/**
 * A scan's publication (completion or import) in the environment: its change of the figures and the environment's
 * latest scan day (`day`), conditioned on the environment's trend version read (`read`) and advancing it.
 */
export function publicationTrendWrites(
  env: EnvironmentRef,
  read: TrendTotal,
  change: TrendChange,
  day: number,
): TransactItem[] {
  const version = versionIs(read);
  return [
    ...scopeWrites(envScope(env), change, {
      set: { version: (read.version ?? 0) + 1, scannedDay: day },
      condition: `${version.condition} AND attribute_not_exists(deleted)`,
      values: version.values,
    }),
    ...upperWrites(env, change),
  ];
}

/**
 * A triage's change in one environment's own figures, conditioned on the environment's trend version read before its
 * findings (a publication meanwhile makes it read again); a check of that version alone when the figures do not
 * move. The application's and organization's part, summed over the environments: applicationTrendWrites.
 */
export function environmentTriageTrendWrites(
  env: EnvironmentRef,
  read: TrendTotal,
  change: TrendChange,
): TransactItem[] {
  const version = versionIs(read);
  const condition = `${version.condition} AND attribute_not_exists(deleted)`;
  // An environment counted for the first time (its baseline is in `change`) gets its version.
  if (read.version === undefined)
    return scopeWrites(envScope(env), change, { set: { version: 1 }, condition, values: version.values });
  if (change.empty)
    return [
      {
        ConditionCheck: {
          TableName: config.tableName,
          Key: keys.trendTotal(envScope(env)),
          ConditionExpression: condition,
          ...(read.version !== undefined && { ExpressionAttributeValues: version.values }),
        },
      },
    ];
  return scopeWrites(envScope(env), change, { condition, values: version.values });
}

/** A change in the application's and the organization's figures (none when it is empty). */
export const applicationTrendWrites = (
  app: Pick<EnvironmentRef, 'organizationId' | 'applicationId'>,
  change: TrendChange,
): TransactItem[] => upperWrites(app, change);

/** The open findings a scope's total counts, leaving on `day`. */
function openRemoval(total: TrendTotal, day: number): TrendChange {
  const change = new TrendChange();
  for (const field of Object.keys(total) as TrendField[])
    if (field.startsWith('open') && typeof total[field] === 'number') change.add(day, field, -total[field]!);
  return change;
}

/**
 * An environment's delete: its open findings and coverage leave its application's and organization's figures (from
 * its total, conditioned on the version read), and its total is marked deleted (the cascade removes its items).
 */
export async function environmentTrendRemoval(env: EnvironmentRef, now: number): Promise<TransactItem[]> {
  const read = await environmentTrendTotal(env);
  const version = versionIs(read);
  const removal = openRemoval(read, dayOf(now));
  coverageRemoval(removal, read.scannedDay, dayOf(now));
  return [
    {
      Update: {
        TableName: config.tableName,
        Key: keys.trendTotal(envScope(env)),
        UpdateExpression: 'SET entity = :entity, deleted = :true, version = :next',
        ConditionExpression: `${version.condition} AND attribute_not_exists(deleted)`,
        ExpressionAttributeValues: {
          ':entity': 'trendTotal',
          ':true': true,
          ':next': (read.version ?? 0) + 1,
          ...version.values,
        },
      },
    },
    ...upperWrites(env, removal),
  ];
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
  const scope = appScope(app);
  // Its environments as stored now (the delete is conditioned on their count).
  const { pk, skPrefix } = keys.environmentsOfApp(app.applicationId);
  const environmentIds = (
    await queryAll({ partition: pk, skPrefix, consistent: true, attributes: ['environmentId'] })
  ).map((item) => item.environmentId as string);
  const [totalItem, envTotals] = await Promise.all([
    db.send(new GetCommand({ TableName: config.tableName, Key: keys.trendTotal(scope), ConsistentRead: true })),
    Promise.all(
      environmentIds.map((environmentId) =>
        environmentTrendTotal({ organizationId: app.organizationId, applicationId: app.applicationId, environmentId }),
      ),
    ),
  ]);
  const total = fromItem<TrendTotal>(totalItem.Item) ?? {};
  const day = dayOf(now);
  const change = openRemoval(total, day);
  for (const env of envTotals) if (!env.deleted) coverageRemoval(change, env.scannedDay, day);
  const seq =
    total.seq === undefined
      ? { condition: 'attribute_not_exists(seq)', values: {} }
      : { condition: 'seq = :seq', values: { ':seq': total.seq } };
  return [
    {
      Update: {
        TableName: config.tableName,
        Key: keys.trendTotal(scope),
        UpdateExpression: 'SET entity = :entity, deleted = :true',
        ConditionExpression: `${seq.condition} AND attribute_not_exists(deleted)`,
        ExpressionAttributeValues: { ':entity': 'trendTotal', ':true': true, ...seq.values },
      },
    },
    ...(change.empty ? [] : scopeWrites(orgScope(app.organizationId), change)),
  ];
}

/**
 * An environment whose findings were recorded before the trends existed (its total has no `version`) counts its
 * current open findings on its first trend write: added to today's open figures, before that write's own change.
 */
export function openBaseline(
  change: TrendChange,
  known: Iterable<Pick<FindingRecord, 'findingHash' | 'severity' | 'fixedAt'>>,
  rules: Map<string, Pick<TriageRule, 'status'>>,
  day: number,
): void {
  for (const f of known)
    if (isCurrent(f) && isOpenStatus(rules.get(f.findingHash)?.status ?? 'UNKNOWN'))
      change.add(day, `open${severityOf(f.severity)}`, 1);
}

/** openBaseline of an environment read now (a triage's first trend write in an environment of older data). */
export async function environmentOpenBaseline(env: EnvironmentRef, change: TrendChange, day: number): Promise<void> {
  const [records, rules] = await Promise.all([
    collect(findingsOfEnvironment(env, ['findingHash', 'severity', 'fixedAt'])),
    rulesOfEnvironment(env),
  ]);
  openBaseline(change, records as FindingRecord[], rules, day);
}

/**
 * The trend part of a scan's publication in its environment: the figures' change from the environment's records and
 * rules as read with `found` (findingsOfScan), the records to write (the scan's, and the fixed ones with `fixedAt`)
 * and the counter writes. `decidesFixes`: the scan completed and is the environment's latest.
 */
export async function publicationTrend(
  scan: EnvironmentRef,
  found: {
    findings: FindingRecord[];
    known: Map<string, FindingRecord>;
    rules: Map<string, TriageRule>;
    trend: TrendTotal;
  },
  decidesFixes: boolean,
  now: number,
): Promise<{ records: FindingRecord[]; items: TransactItem[] }> {
  const reported = new Set(found.findings.map((f) => f.findingHash));
  const fixes = decidesFixes && [...found.known.values()].some((f) => isCurrent(f) && !reported.has(f.findingHash));
  // The days that apply in this environment (its override, its application's, else the organization's).
  const policy = fixes ? { days: (await slaDaysResolver(scan.organizationId, [scan]))(scan) } : undefined;
  const { change, fixed } = publicationChange(found.known, found.findings, found.rules, decidesFixes, now, policy);
  if (found.trend.version === undefined) openBaseline(change, found.known.values(), found.rules, dayOf(now));
  coverageScan(change, found.trend.scannedDay, dayOf(now));
  // Findings whose overdue episode starts with this publication: the overdue check's entry (docs/GOVERNANCE.md).
  const wake = publicationWake(
    scan,
    found.known,
    found.findings,
    (hash) => found.rules.get(hash)?.status ?? 'UNKNOWN',
    now,
  );
  return {
    records: [...found.findings, ...fixed],
    items: [...publicationTrendWrites(scan, found.trend, change, dayOf(now)), ...(wake ? [overdueWakePut(wake)] : [])],
  };
}
