import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys, type TrendScopeRef } from '../db/keys.ts';
import { queryAll } from '../db/query.ts';
import { LostRace, lostRace, retryOnConflict } from '../db/retry.ts';
import { config } from '../config.ts';
import { notFound } from '../errors.ts';
import { accessibleApplication } from '../applications/access.ts';
import { getEnvironment } from '../applications/environment-repository.ts';
import type { Caller } from '../context/caller.ts';
import {
  COVERAGE_WINDOWS,
  DAY,
  TREND_FIELDS,
  TREND_SEVERITIES,
  dayOf,
  type Figures,
  type TrendField,
  type TrendTotal,
} from './model.ts';

// Reading the trends (docs/GOVERNANCE.md, Trends): one Query of the scope's day items over the period (and the 29
// days before it, for the 30-day coverage) with its total, newest first, then the total again: a cost of at most
// days + 30 small items whatever the organization's size.

/**
 * The figures as stored: the scope's total and its day items from `fromDay` on; while writes keep changing them, the
 * last read once the retry policy's attempts are spent.
 */
async function storedFigures(scope: TrendScopeRef, fromDay: number) {
  const range = keys.trendDaysFrom(scope, fromDay);
  const totalKey = keys.trendTotal(scope);
  let last: { total: TrendTotal; days: Map<number, Figures> } | undefined;
  const retry = { conflict: lostRace, backoffMs: 0 };
  return retryOnConflict(retry, async () => {
    // The total comes first (newest first); a write that commits while the days are read changes its `seq`, so
    // reading it again tells whether the days and the total are of the same moment.
    const items = await queryAll({
      partition: range.pk,
      skFrom: range.skFrom,
      skTo: range.skTo,
      forward: false,
      consistent: true,
    });
    const total = (items[0]?.sk === totalKey.sk ? items[0] : {}) as TrendTotal;
    const days = new Map<number, Figures>();
    for (const item of items) if (item.entity === 'trendDay') days.set(item.day as number, item as Figures);
    last = { total, days };
    const again = await db.send(new GetCommand({ TableName: config.tableName, Key: totalKey, ConsistentRead: true }));
    if ((again.Item?.seq ?? 0) === (total.seq ?? 0)) return last;
    throw new LostRace('the total changed while the days were read');
  }).catch((error: unknown) => {
    if (lostRace(error) === undefined || !last) throw error;
    return last;
  });
}

type BySeverity = Record<(typeof TREND_SEVERITIES)[number], number>;

/** hawk.TrendDay: one day's figures. */
export interface TrendDay {
  date: string;
  open: BySeverity;
  new: BySeverity;
  fixed: BySeverity;
  reopened: BySeverity;
  fixTimeMs: number;
  fixesWithDueDate: number;
  fixedWithinSla: number;
  scannedWithin7Days: number;
  scannedWithin30Days: number;
}
const bySeverity = (value: (severity: (typeof TREND_SEVERITIES)[number]) => number) =>
  Object.fromEntries(TREND_SEVERITIES.map((s) => [s, value(s)])) as BySeverity;

/**
 * The daily figures of the `days` days up to `now`'s (UTC), oldest first. Open findings and coverage are states at the
 * end of each day (the total minus the changes of later days); the rest are the day's events.
 */
export async function scopeTrends(scope: TrendScopeRef, days: number, now: number) {
  const today = dayOf(now);
  const first = today - days + 1;
  const widest = Math.max(...COVERAGE_WINDOWS);
  const { total, days: stored } = await storedFigures(scope, first - widest + 1);
  // after[f] = the sum of field f over the days after the one being computed (walking back from the newest stored).
  const after = Object.fromEntries(TREND_FIELDS.map((f) => [f, 0])) as Record<TrendField, number>;
  const newest = Math.max(today, ...stored.keys());
  const afterAt = new Map<number, Record<TrendField, number>>();
  for (let d = newest; d >= first - widest; d--) {
    afterAt.set(d, { ...after });
    const figures = stored.get(d);
    if (figures) for (const f of TREND_FIELDS) after[f] += Number(figures[f] ?? 0);
  }
  const upTo = (f: TrendField, d: number) => Number(total[f] ?? 0) - afterAt.get(d)![f];
  const series: TrendDay[] = [];
  for (let d = first; d <= today; d++) {
    const figures = stored.get(d) ?? {};
    const count = (f: TrendField) => Number(figures[f] ?? 0);
    series.push({
      date: new Date(d * DAY).toISOString().slice(0, 10),
      open: bySeverity((s) => upTo(`open${s}`, d)),
      new: bySeverity((s) => count(`new${s}`)),
      fixed: bySeverity((s) => count(`fixed${s}`)),
      reopened: bySeverity((s) => count(`reopened${s}`)),
      fixTimeMs: count('fixTimeMs'),
      fixesWithDueDate: count('slaDue'),
      fixedWithinSla: count('slaMet'),
      scannedWithin7Days: upTo('start7', d) - upTo('stop7', d - 7),
      scannedWithin30Days: upTo('start30', d) - upTo('stop30', d - 30),
    });
  }
  const sum = (pick: (day: TrendDay) => number) => series.reduce((n, day) => n + pick(day), 0);
  const fixes = sum((day) => TREND_SEVERITIES.reduce((n, s) => n + day.fixed[s], 0));
  const fixTimeMs = sum((day) => day.fixTimeMs);
  const due = sum((day) => day.fixesWithDueDate);
  return {
    from: series[0]!.date,
    to: series[series.length - 1]!.date,
    days: series,
    summary: {
      new: bySeverity((s) => sum((day) => day.new[s])),
      fixed: bySeverity((s) => sum((day) => day.fixed[s])),
      reopened: bySeverity((s) => sum((day) => day.reopened[s])),
      fixes,
      fixTimeMs,
      meanTimeToRemediateDays: fixes ? fixTimeMs / fixes / DAY : 0,
      fixesWithDueDate: due,
      fixedWithinSla: sum((day) => day.fixedWithinSla),
      slaCompliance: due ? sum((day) => day.fixedWithinSla) / due : 0,
    },
  };
}

/** GET /api/v1/org/{orgId}/trends (getOrganizationTrends): every application of the organization. */
export async function organizationTrends(caller: Caller, orgId: string, days: number) {
  await caller.authorize(orgId);
  return { organizationId: orgId, ...(await scopeTrends({ orgId }, days, Date.now())) };
}

/** The application `{appId}` of the organization `{orgId}` (404 for another organization's), with its team rules. */
async function applicationOf(caller: Caller, orgId: string, appId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  if (app.organizationId !== orgId) throw notFound(`application ${appId} not found`);
  return app;
}

/** GET /api/v1/org/{orgId}/app/{appId}/trends (getApplicationTrends). */
export async function applicationTrends(caller: Caller, orgId: string, appId: string, days: number) {
  await applicationOf(caller, orgId, appId);
  return {
    organizationId: orgId,
    applicationId: appId,
    ...(await scopeTrends({ orgId, appId }, days, Date.now())),
  };
}

/** GET /api/v1/org/{orgId}/app/{appId}/env/{envId}/trends (getEnvironmentTrends). */
export async function environmentTrends(caller: Caller, orgId: string, appId: string, envId: string, days: number) {
  await applicationOf(caller, orgId, appId);
  if (!(await getEnvironment(appId, envId))) throw notFound(`environment ${envId} not found`);
  return {
    organizationId: orgId,
    applicationId: appId,
    environmentId: envId,
    ...(await scopeTrends({ orgId, appId, envId }, days, Date.now())),
  };
}
