import { keys, type TrendScopeRef } from '../../db/keys.ts';
import { config } from '../../config.ts';
import type { CounterChange, Projected } from '../../db/entity-write.ts';
import type { TransactItem } from '../../db/transactions.ts';
import { slaClock, severityDays, type SlaPolicy } from '../../governance/model.ts';
import type { FindingRecord, TriageRule } from '../../results/model.ts';
import {
  TrendChange,
  coverageRemoval,
  coverageScan,
  dayOf,
  isCurrent,
  isOpenStatus,
  severityOf,
  type Figures,
  type TrendField,
} from '../model.ts';

// An environment's trend figures (docs/GOVERNANCE.md, Trends; docs/DATA-MODEL.md, Trends and Projections): a
// projection of its findings as the trends count them (records, triage statuses) and of its total's own fields
// (version, latest scan day). A write moves the day items and totals of the environment, its application and its
// organization by the difference between what its findings count after it and before it, conditioned on the
// environment's total's version read before the findings (the figures are derived from records read under it).

export type TrendFinding = Pick<FindingRecord, 'findingHash' | 'severity' | 'firstSeen' | 'fixedAt'>;
export type TrendRule = Pick<TriageRule, 'status' | 'history'>;

/** What the trends count of an environment, before or after a write. */
export interface EnvironmentTrends {
  /** Its total's version (undefined: never counted; each publication and the delete advance it). */
  version?: number;
  /** The UTC day of its latest published scan (coverage). */
  scannedDay?: number;
  /**
   * Its finding records by hash: those the write changes (the same hashes before and after), or all of them while
   * it is not counted yet (its first count takes in its open findings).
   */
  findings: ReadonlyMap<string, TrendFinding>;
  /** The rules of those findings by hash (none: UNKNOWN). */
  rules: ReadonlyMap<string, TrendRule>;
  /** Before its delete: the figures its total counts (what it takes out of its application and organization). */
  counted?: Figures;
}

export type EnvironmentRef = { organizationId: string; applicationId: string; environmentId: string };

export interface TrendContext {
  env: EnvironmentRef;
  /** The write's time: its changes go to this day. */
  now: number;
  /** The SLA days in force in the environment (fixes' due dates; undefined: none read, no fix to date). */
  policy?: Pick<SlaPolicy, 'days'>;
}

export const envScope = (env: EnvironmentRef): TrendScopeRef => ({
  orgId: env.organizationId,
  appId: env.applicationId,
  envId: env.environmentId,
});
export const appScope = (env: Pick<EnvironmentRef, 'organizationId' | 'applicationId'>): TrendScopeRef => ({
  orgId: env.organizationId,
  appId: env.applicationId,
});
export const orgScope = (orgId: string): TrendScopeRef => ({ orgId });

/** The severity a finding counts as open in (undefined: not open: fixed, or set aside). */
const openIn = (finding: TrendFinding | undefined, rule: TrendRule | undefined) =>
  finding && isCurrent(finding) && isOpenStatus(rule?.status ?? 'UNKNOWN') ? severityOf(finding.severity) : undefined;

/**
 * The figures' change from `before` to `after` (undefined: the environment leaves). Per finding: new when it had no
 * record; open by the severity it is open in after less before (not subtracted before the first count); reopened
 * when it had a record but was not open, and is; fixed (with its time to fix and due date) when it was open and
 * current, and is fixed. Coverage: a new latest scan day extends or starts its windows; leaving ends them.
 */
export function figuresChange(
  before: EnvironmentTrends | undefined,
  after: EnvironmentTrends | undefined,
  { now, policy }: TrendContext,
): TrendChange {
  const change = new TrendChange();
  const day = dayOf(now);
  if (!after) {
    for (const [field, value] of Object.entries(before?.counted ?? {}) as [TrendField, number][])
      if (field.startsWith('open')) change.add(day, field, -value);
    coverageRemoval(change, before?.scannedDay, day);
    return change;
  }
  const counted = before?.version !== undefined;
  for (const [hash, is] of after.findings) {
    const was = before?.findings.get(hash);
    const rule = before?.rules.get(hash);
    const [openBefore, openAfter] = [openIn(was, rule), openIn(is, after.rules.get(hash))];
    if (counted && openBefore) change.add(day, `open${openBefore}`, -1);
    if (openAfter) change.add(day, `open${openAfter}`, 1);
    if (!was) change.add(day, `new${severityOf(is.severity)}`, 1);
    else if (openAfter && !openBefore) change.add(day, `reopened${openAfter}`, 1);
    if (openBefore && !isCurrent(is)) {
      change.add(day, `fixed${openBefore}`, 1);
      change.add(day, 'fixTimeMs', is.fixedAt! - was!.firstSeen);
      const clock = slaClock(
        was!.firstSeen,
        policy && severityDays(policy.days, was!.severity),
        rule?.history ?? [],
        now,
      );
      if (clock.dueAt !== undefined) {
        change.add(day, 'slaDue', 1);
        if (now <= clock.dueAt) change.add(day, 'slaMet', 1);
      }
    }
  }
  if (after.scannedDay !== undefined && after.scannedDay !== before?.scannedDay)
    coverageScan(change, before?.scannedDay, after.scannedDay);
  return change;
}

/** The day items' and the total's counter changes of `change` in `scope` (none when it is empty). */
export function scopeCounters(
  scope: TrendScopeRef,
  change: TrendChange,
  total: Pick<CounterChange, 'set' | 'condition'> = {},
): CounterChange[] {
  const counters: CounterChange[] = [];
  for (const [day, figures] of change.days) {
    const add = nonZero(figures);
    if (Object.keys(add).length)
      counters.push({ key: keys.trendDay(scope, day), entity: 'trendDay', set: { day }, add });
  }
  counters.push({
    key: keys.trendTotal(scope),
    entity: 'trendTotal',
    ...total,
    add: { ...nonZero(change.total()), seq: 1 },
  });
  return counters;
}

const nonZero = (figures: Figures) =>
  Object.fromEntries(Object.entries(figures).filter(([, v]) => v !== 0)) as Record<string, number>;

/** The application's and organization's share of an environment's change (none when it is empty). */
export function upperCounters(
  env: Pick<EnvironmentRef, 'organizationId' | 'applicationId'>,
  change: TrendChange,
): CounterChange[] {
  if (change.empty) return [];
  return [
    ...scopeCounters(appScope(env), change, { condition: { expression: 'attribute_not_exists(deleted)' } }),
    ...scopeCounters(orgScope(env.organizationId), change),
  ];
}

/**
 * What a write from `before` to `after` needs of the trends: the figures' change in the environment's day items and
 * total (conditioned on the version read and on the environment not deleted; setting its version and latest scan
 * day when they change; a check of the version alone when nothing changes) and, summed with the other
 * environments' of the write, its application's and organization's. Its delete marks its total deleted.
 */
export function project(
  before: EnvironmentTrends | undefined,
  after: EnvironmentTrends | undefined,
  context: TrendContext,
): Projected {
  const change = figuresChange(before, after, context);
  const version =
    before?.version === undefined
      ? { expression: 'attribute_not_exists(version)', values: {} }
      : { expression: 'version = :version', values: { ':version': before.version } };
  const condition = { ...version, expression: `${version.expression} AND attribute_not_exists(deleted)` };
  const total = keys.trendTotal(envScope(context.env));
  if (!after) {
    const mark: TransactItem = {
      Update: {
        TableName: config.tableName,
        Key: total,
        UpdateExpression: 'SET entity = :entity, deleted = :true, version = :next',
        ConditionExpression: condition.expression,
        ExpressionAttributeValues: {
          ':entity': 'trendTotal',
          ':true': true,
          ':next': (before?.version ?? 0) + 1,
          ...condition.values,
        },
      },
    };
    return { items: [mark], counters: upperCounters(context.env, change) };
  }
  const set = {
    ...(after.version !== before?.version && { version: after.version }),
    ...(after.scannedDay !== before?.scannedDay && { scannedDay: after.scannedDay }),
  };
  if (change.empty && Object.keys(set).length === 0) {
    const check: TransactItem = {
      ConditionCheck: {
        TableName: config.tableName,
        Key: total,
        ConditionExpression: condition.expression,
        ...(before?.version !== undefined && { ExpressionAttributeValues: condition.values }),
      },
    };
    return { items: [check] };
  }
  return {
    counters: [
      ...scopeCounters(envScope(context.env), change, { set, condition }),
      ...upperCounters(context.env, change),
    ],
  };
}
