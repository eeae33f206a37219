import fc from 'fast-check';
import { expect } from 'vitest';
import { derivedWrites } from '../../shared/db/entity-write.ts';
import { applicationTrends, environmentTrends } from '../../shared/trends/entities.ts';
import * as environmentTrendFigures from '../../shared/trends/projections/environment-trend-figures.ts';
import type { TransactItem } from '../../shared/db/transactions.ts';
import { keys, type TrendScopeRef } from '../../shared/db/keys.ts';
import { COVERAGE_WINDOWS, DAY, TREND_SEVERITIES, dayOf, type TrendTotal } from '../../shared/trends/model.ts';
import type {
  EnvironmentRef,
  EnvironmentTrends,
  TrendFinding,
  TrendRule,
} from '../../shared/trends/projections/environment-trend-figures.ts';
import type { TriageStatus } from '../../shared/results/model.ts';
import type { Severity } from '../../shared/input/severities.ts';
import { slaClock, severityDays } from '../../shared/governance/model.ts';

// The trend figures' model, for the projection property tests (test/unit/trend-projections.test.ts in memory,
// test/integration/trend-projections.test.ts on DynamoDB Local): random sequences of publications (completions
// that decide fixes or not), triage, environment and application deletes, in environments of older data (findings
// recorded before the trends) or new ones, played through the trend projections as trends/writes.ts builds their
// states, on a table given as what it stores of a scope and how it commits; then what is stored must equal a
// recomputation from the findings: the open figures from the findings as they stand, the new, fixed and reopened
// ones, the time to fix and due dates from their histories, the coverage from the environments' latest scans; and
// every scope's day items sum to its total.

export type Item = Record<string, unknown>;
export const keyOf = (key: Item) => `${key.pk as string}|${key.sk as string}`;

/** Where the trends are kept: a scope's items (its days and total) and a transaction's commit. */
export interface TrendTable {
  itemsOf(scope: TrendScopeRef): Promise<Item[]>;
  commit(items: TransactItem[]): Promise<void>;
}

/** The organization, its two applications and their three environments. */
export interface TrendWorld {
  org: string;
  apps: string[];
  envs: EnvironmentRef[];
}

export const worldOf = (id: string): TrendWorld => ({
  org: `org-${id}`,
  apps: [`app1-${id}`, `app2-${id}`],
  envs: [
    { applicationId: `app1-${id}`, environmentId: `env1-${id}` },
    { applicationId: `app1-${id}`, environmentId: `env2-${id}` },
    { applicationId: `app2-${id}`, environmentId: `env3-${id}` },
  ].map((e) => ({ organizationId: `org-${id}`, ...e })),
});
const ENV_COUNT = 3;
const APP_COUNT = 2;

const HASHES = ['a', 'b', 'c', 'd', 'e'];
const SEVERITY: Record<string, Severity> = { a: 'High', b: 'Medium', c: 'Low', d: 'Info', e: 'High' };
const STATUSES: TriageStatus[] = ['UNKNOWN', 'ADD_COMMENT', 'FALSE_POSITIVE', 'RISK_ACCEPTED', 'PROMOTED'];
const T0 = 1_750_000_000_000;
const policy = { days: { High: 7, Medium: 30, Low: 90 } };

/** The model: each environment's findings and rules, and the events of their histories. */
export interface EnvModel {
  records: Map<string, TrendFinding>;
  rules: Map<string, TrendRule>;
  deleted: boolean;
  events: Record<string, number>;
}

const isOpen = (status: TriageStatus | undefined) => status !== 'FALSE_POSITIVE' && status !== 'RISK_ACCEPTED';
const severityField = (severity: string) => (severity === 'Info' ? 'Info' : severity);

export type Op =
  | { kind: 'publish'; env: number; reported: boolean[]; decidesFixes: boolean; hours: number }
  | { kind: 'triage'; env: number; hash: number; status: TriageStatus; hours: number }
  | { kind: 'deleteEnvironment'; env: number; hours: number }
  | { kind: 'deleteApplication'; app: number; hours: number };

export const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('publish' as const),
      env: fc.nat(ENV_COUNT - 1),
      reported: fc.array(fc.boolean(), { minLength: HASHES.length, maxLength: HASHES.length }),
      decidesFixes: fc.boolean(),
      hours: fc.nat(72),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('triage' as const),
      env: fc.nat(ENV_COUNT - 1),
      hash: fc.nat(HASHES.length - 1),
      status: fc.constantFrom(...STATUSES),
      hours: fc.nat(72),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('deleteEnvironment' as const),
      env: fc.nat(ENV_COUNT - 1),
      hours: fc.nat(72),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('deleteApplication' as const),
      app: fc.nat(APP_COUNT - 1),
      hours: fc.nat(72),
    }),
  },
);

/** Findings recorded before the trends (an environment of older data): hash → [fixed, status]. */
export const olderData = fc.array(
  fc.dictionary(fc.constantFrom(...HASHES), fc.tuple(fc.boolean(), fc.constantFrom(...STATUSES)), { maxKeys: 5 }),
  { minLength: ENV_COUNT, maxLength: ENV_COUNT },
);

const { envScope, appScope, orgScope } = environmentTrendFigures;

/** Plays `ops` on `table` from the environments' older data. */
export async function play(
  world: TrendWorld,
  older: Record<string, [boolean, TriageStatus]>[],
  ops: Op[],
  table: TrendTable,
) {
  const { org: ORG, apps: APPS, envs: ENVS } = world;
  const models: EnvModel[] = ENVS.map((_, i) => ({
    records: new Map(
      Object.entries(older[i]!).map(([hash, [fixed]]) => [
        hash,
        { findingHash: hash, severity: SEVERITY[hash]!, firstSeen: T0 - DAY, ...(fixed && { fixedAt: T0 - 1 }) },
      ]),
    ),
    rules: new Map(Object.entries(older[i]!).map(([hash, [, status]]) => [hash, { status, history: [] }] as const)),
    deleted: false,
    events: {},
  }));
  const appDeleted = new Set<string>();
  let now = T0;
  const total = async (scope: TrendScopeRef) => totalOf(scope, await table.itemsOf(scope));
  const count = (model: EnvModel, field: string, n = 1) => (model.events[field] = (model.events[field] ?? 0) + n);

  for (const step of ops) {
    now += step.hours * 3_600_000 + 1;
    if (step.kind === 'deleteApplication') {
      const applicationId = APPS[step.app]!;
      if (appDeleted.has(applicationId)) continue;
      const environments = await Promise.all(
        ENVS.filter((e) => e.applicationId === applicationId).map((e) => total(envScope(e))),
      );
      const before = { total: await total(appScope({ organizationId: ORG, applicationId })), environments };
      await table.commit(
        derivedWrites(applicationTrends, before, undefined, { organizationId: ORG, applicationId, now }),
      );
      appDeleted.add(applicationId);
      continue;
    }
    const env = ENVS[step.env]!;
    const model = models[step.env]!;
    if (model.deleted || appDeleted.has(env.applicationId)) continue;
    const read = await total(envScope(env));
    if (step.kind === 'deleteEnvironment') {
      const before: EnvironmentTrends = {
        version: read.version,
        scannedDay: read.scannedDay,
        findings: new Map(),
        rules: new Map(),
        counted: read,
      };
      await table.commit(derivedWrites(environmentTrends, before, undefined, { env, now }));
      model.deleted = true;
      continue;
    }
    if (step.kind === 'triage') {
      const hash = HASHES[step.hash]!;
      const finding = model.records.get(hash);
      if (!finding) continue;
      const was = model.rules.get(hash);
      const rule: TrendRule = {
        status: step.status,
        history: [
          ...(was?.history ?? []),
          {
            operation: 'UPDATE',
            oldResult: was?.status ?? 'UNKNOWN',
            newResult: step.status,
            note: '',
            userId: 'u',
            timestamp: now,
          },
        ],
      };
      if (finding.fixedAt === undefined && !isOpen(was?.status) && isOpen(step.status))
        count(model, `reopened${severityField(finding.severity)}`);
      // As triageTrends: the changed finding, or every finding of an environment not counted yet.
      const counted = read.version !== undefined;
      const findings = counted ? new Map([[hash, finding]]) : new Map(model.records);
      const rulesBefore = counted ? new Map(was ? [[hash, was]] : []) : new Map(model.rules);
      model.rules.set(hash, rule);
      const rulesAfter = counted ? new Map([[hash, rule]]) : new Map(model.rules);
      const before = { version: read.version, scannedDay: read.scannedDay, findings, rules: rulesBefore };
      const after = { version: read.version ?? 1, scannedDay: read.scannedDay, findings, rules: rulesAfter };
      await table.commit(derivedWrites(environmentTrends, before, after, { env, now }));
      continue;
    }
    // A publication, as publicationTrend: the reported findings, and the current ones it does not report fixed.
    const known = new Map(model.records);
    const written: TrendFinding[] = [];
    HASHES.forEach((hash, i) => {
      const was = known.get(hash);
      if (!step.reported[i]) {
        if (step.decidesFixes && was && was.fixedAt === undefined) {
          written.push({ ...was, fixedAt: now });
          const rule = model.rules.get(hash);
          if (isOpen(rule?.status)) {
            count(model, `fixed${severityField(was.severity)}`);
            count(model, 'fixTimeMs', now - was.firstSeen);
            // Its due date by the SLA clock of its history (docs/GOVERNANCE.md; test/unit/sla-clock.test.ts).
            const clock = slaClock(was.firstSeen, severityDays(policy.days, was.severity), rule?.history ?? [], now);
            if (clock.dueAt !== undefined) {
              count(model, 'slaDue');
              if (now <= clock.dueAt) count(model, 'slaMet');
            }
          }
        }
        return;
      }
      written.push({ findingHash: hash, severity: SEVERITY[hash]!, firstSeen: was?.firstSeen ?? now });
      if (!was) count(model, `new${severityField(SEVERITY[hash]!)}`);
      else if (was.fixedAt !== undefined && isOpen(model.rules.get(hash)?.status))
        count(model, `reopened${severityField(SEVERITY[hash]!)}`);
    });
    for (const f of written) model.records.set(f.findingHash, f);
    const before = { version: read.version, scannedDay: read.scannedDay, findings: known, rules: new Map(model.rules) };
    const after = {
      version: (read.version ?? 0) + 1,
      scannedDay: dayOf(now),
      findings: new Map(model.records),
      rules: new Map(model.rules),
    };
    await table.commit(derivedWrites(environmentTrends, before, after, { env, now, policy }));
  }
  return { models, appDeleted, today: dayOf(now) };
}

/** The figures a scope's environments give: open ones from their findings now, the others from their histories. */
function recomputed(models: EnvModel[], live: (i: number) => boolean, all: (i: number) => boolean) {
  const figures: Record<string, number> = {};
  const add = (field: string, n: number) => (figures[field] = (figures[field] ?? 0) + n);
  models.forEach((model, i) => {
    if (all(i)) for (const [field, n] of Object.entries(model.events)) add(field, n);
    if (!live(i)) return;
    for (const f of model.records.values())
      if (f.fixedAt === undefined && isOpen(model.rules.get(f.findingHash)?.status))
        add(`open${severityField(f.severity)}`, 1);
  });
  return Object.fromEntries(Object.entries(figures).filter(([, n]) => n !== 0));
}

/** A scope's total among its items (none: nothing counted yet). */
const totalOf = (scope: TrendScopeRef, items: Item[]) =>
  (items.find((item) => keyOf(item) === keyOf(keys.trendTotal(scope))) ?? {}) as TrendTotal;

/** A scope's stored figures (its total's, without its state and zeros) and its day items summed. */
function stored(scope: TrendScopeRef, items: Item[]) {
  const figures = (item: Item) =>
    Object.fromEntries(
      Object.entries(item).filter(
        ([field, n]) => typeof n === 'number' && n !== 0 && !['seq', 'version', 'scannedDay', 'day'].includes(field),
      ),
    ) as Record<string, number>;
  const days = items.filter(
    (item) => item.entity === 'trendDay' && keyOf(item) === keyOf(keys.trendDay(scope, item.day as number)),
  );
  const summed: Record<string, number> = {};
  for (const day of days)
    for (const [field, n] of Object.entries(figures(day))) summed[field] = (summed[field] ?? 0) + n;
  return {
    total: figures(totalOf(scope, items) as Item),
    days: Object.fromEntries(Object.entries(summed).filter(([, n]) => n !== 0)),
    dayItems: days,
  };
}

/** How many of a scope's environments its day items count as covered on `day` (window `w`). */
const covered = (dayItems: Item[], w: number, day: number) =>
  dayItems.reduce(
    (sum, item) =>
      sum +
      ((item.day as number) <= day ? ((item[`start${w}`] as number) ?? 0) : 0) -
      ((item.day as number) <= day - w ? ((item[`stop${w}`] as number) ?? 0) : 0),
    0,
  );

/** Checks what `table` stores of every live scope of `world` against the recomputation from the played findings. */
export async function expectRecomputed(
  world: TrendWorld,
  { models, appDeleted, today }: Awaited<ReturnType<typeof play>>,
  table: TrendTable,
): Promise<void> {
  const { org, apps, envs } = world;
  const envTotals = await Promise.all(envs.map(async (e) => totalOf(envScope(e), await table.itemsOf(envScope(e)))));
  const appLive = (i: number) => !appDeleted.has(envs[i]!.applicationId);
  const live = (i: number) => !models[i]!.deleted && appLive(i);
  // Environments of older data not written since count nothing yet (their first write counts them).
  const counted = (i: number) => envTotals[i]!.version !== undefined;
  const coveredCount = (members: number[], w: number) =>
    members.filter((i) => live(i) && envTotals[i]!.scannedDay !== undefined && envTotals[i]!.scannedDay! > today - w)
      .length;
  const scopes: [TrendScopeRef, number[], boolean][] = [
    ...envs.map((e, i) => [envScope(e), [i], live(i)] as [TrendScopeRef, number[], boolean]),
    ...apps.map(
      (applicationId) =>
        [
          appScope({ organizationId: org, applicationId }),
          envs.flatMap((e, i) => (e.applicationId === applicationId ? [i] : [])),
          !appDeleted.has(applicationId),
        ] as [TrendScopeRef, number[], boolean],
    ),
    [orgScope(org), envs.map((_, i) => i), true],
  ];
  for (const [scope, members, isLive] of scopes) {
    if (!isLive) continue; // its total is marked deleted; its items go with the cascade
    const counts = stored(scope, await table.itemsOf(scope));
    const expected = recomputed(
      models,
      (i) => members.includes(i) && live(i) && counted(i),
      (i) => members.includes(i),
    );
    const { start7: _s7, stop7: _t7, start30: _s30, stop30: _t30, ...figures } = counts.total;
    expect(figures, JSON.stringify(scope)).toEqual(expected);
    expect(counts.days).toEqual(counts.total);
    for (const w of COVERAGE_WINDOWS) expect(covered(counts.dayItems, w, today)).toBe(coveredCount(members, w));
    // Every figure is named as the trends name it.
    for (const field of Object.keys(counts.total))
      expect(field).toMatch(
        new RegExp(
          `^(open|new|fixed|reopened)(${TREND_SEVERITIES.join('|')})$|^(fixTimeMs|slaDue|slaMet|start\\d+|stop\\d+)$`,
        ),
      );
  }
}
