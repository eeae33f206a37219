import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { projectedWrites } from '../../shared/db/entity-write.ts';
import type { TransactItem } from '../../shared/db/transactions.ts';
import { keys, type TrendScopeRef } from '../../shared/db/keys.ts';
import { COVERAGE_WINDOWS, DAY, TREND_SEVERITIES, dayOf, type TrendTotal } from '../../shared/trends/figures.ts';
import * as environmentTrends from '../../shared/trends/projections/environment-trend-figures.ts';
import * as applicationTrends from '../../shared/trends/projections/application-trend-figures.ts';
import type {
  EnvironmentTrends,
  TrendFinding,
  TrendRule,
} from '../../shared/trends/projections/environment-trend-figures.ts';
import type { TriageStatus } from '../../shared/findings/statuses.ts';
import type { Severity } from '../../shared/scans/inputs.ts';
import { slaClock } from '../../shared/governance/clock.ts';
import { severityDays } from '../../shared/governance/policy.ts';

// The trend figures' projections (docs/DATA-MODEL.md, Projections; docs/GOVERNANCE.md, Trends) are pure: for random
// sequences of publications (completions that decide fixes or not), triage, environment and application deletes,
// in environments of older data (findings recorded before the trends) or new ones, their items are applied in memory
// (their conditions checked against what is stored) and what is stored must equal a recomputation from the
// findings: the open figures from the findings as they stand, the new, fixed and reopened ones and the time to fix
// from their histories, the coverage from the environments' latest scans; every scope's day items sum to its total.
// test/integration/trends.test.ts checks the same day by day through the API on DynamoDB Local.

type Item = Record<string, unknown>;
type Store = Map<string, Item>;
const keyOf = (key: Item) => `${key.pk as string}|${key.sk as string}`;

const HASHES = ['a', 'b', 'c', 'd', 'e'];
const SEVERITY: Record<string, Severity> = { a: 'High', b: 'Medium', c: 'Low', d: 'Info', e: 'High' };
const STATUSES: TriageStatus[] = ['UNKNOWN', 'ADD_COMMENT', 'FALSE_POSITIVE', 'RISK_ACCEPTED', 'PROMOTED'];
const ORG = 'org';
const APPS = ['app1', 'app2'];
/** Environments and their applications. */
const ENVS = [
  { applicationId: 'app1', environmentId: 'env1' },
  { applicationId: 'app1', environmentId: 'env2' },
  { applicationId: 'app2', environmentId: 'env3' },
].map((e) => ({ organizationId: ORG, ...e }));
const T0 = 1_750_000_000_000;
const policy = { days: { High: 7, Medium: 30, Low: 90 } };

/** Whether the condition of an item holds for what is stored (the forms the trend writes use). */
function holds(condition: string | undefined, item: Item | undefined, values: Item = {}): boolean {
  if (!condition) return true;
  return condition.split(' AND ').every((part) => {
    const exists = /^attribute_(not_)?exists\((\w+)\)$/.exec(part);
    if (exists) return (item?.[exists[2]!] !== undefined) === !exists[1];
    const [name, value] = part.split(' = ');
    return item?.[name!] === values[value!];
  });
}

/** Applies one transaction's items to `store`, after checking every condition (all or nothing, as DynamoDB). */
function apply(store: Store, items: TransactItem[]): void {
  for (const item of items) {
    const op = (item.Update ?? item.ConditionCheck)!;
    if (!op) throw new Error(`unexpected item ${JSON.stringify(item)}`);
    const ok = holds(op.ConditionExpression, store.get(keyOf(op.Key!)), op.ExpressionAttributeValues);
    if (!ok) throw new Error(`condition failed: ${op.ConditionExpression} on ${keyOf(op.Key!)}`);
  }
  const keysSeen = new Set<string>();
  for (const item of items) {
    const op = (item.Update ?? item.ConditionCheck)!;
    const id = keyOf(op.Key!);
    expect(keysSeen.has(id), `two operations on ${id} in one transaction`).toBe(false);
    keysSeen.add(id);
    if (!item.Update) continue;
    const {
      UpdateExpression,
      ExpressionAttributeNames: names = {},
      ExpressionAttributeValues: values = {},
    } = item.Update;
    const stored = store.get(id) ?? {};
    const name = (n: string) => names[n] ?? n;
    const [set, add] = UpdateExpression!.replace(/^SET /, '').split(' ADD ');
    for (const clause of set!.split(', ')) {
      const [lhs, rhs] = clause.split(' = ');
      stored[name(lhs!)] = values[rhs!];
    }
    for (const clause of add?.split(', ') ?? []) {
      const [lhs, rhs] = clause.split(' ');
      stored[name(lhs!)] = ((stored[name(lhs!)] as number | undefined) ?? 0) + (values[rhs!] as number);
    }
    store.set(id, stored);
  }
}

/** The model: each environment's findings and rules, and the events of their histories. */
interface EnvModel {
  records: Map<string, TrendFinding>;
  rules: Map<string, TrendRule>;
  deleted: boolean;
  events: Record<string, number>;
}

const isOpen = (status: TriageStatus | undefined) => status !== 'FALSE_POSITIVE' && status !== 'RISK_ACCEPTED';
const severityField = (severity: string) => (severity === 'Info' ? 'Info' : severity);

type Op =
  | { kind: 'publish'; env: number; reported: boolean[]; decidesFixes: boolean; hours: number }
  | { kind: 'triage'; env: number; hash: number; status: TriageStatus; hours: number }
  | { kind: 'deleteEnvironment'; env: number; hours: number }
  | { kind: 'deleteApplication'; app: number; hours: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('publish' as const),
      env: fc.nat(ENVS.length - 1),
      reported: fc.array(fc.boolean(), { minLength: HASHES.length, maxLength: HASHES.length }),
      decidesFixes: fc.boolean(),
      hours: fc.nat(72),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('triage' as const),
      env: fc.nat(ENVS.length - 1),
      hash: fc.nat(HASHES.length - 1),
      status: fc.constantFrom(...STATUSES),
      hours: fc.nat(72),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('deleteEnvironment' as const),
      env: fc.nat(ENVS.length - 1),
      hours: fc.nat(72),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('deleteApplication' as const),
      app: fc.nat(APPS.length - 1),
      hours: fc.nat(72),
    }),
  },
);

/** Findings recorded before the trends (an environment of older data): hash → [fixed, status]. */
const olderData = fc.array(
  fc.dictionary(fc.constantFrom(...HASHES), fc.tuple(fc.boolean(), fc.constantFrom(...STATUSES)), { maxKeys: 5 }),
  { minLength: ENVS.length, maxLength: ENVS.length },
);

const envScope = environmentTrends.envScope;
const appScope = environmentTrends.appScope;
const orgScope = environmentTrends.orgScope;

function run(older: Record<string, [boolean, TriageStatus]>[], ops: Op[]) {
  const store: Store = new Map();
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
  const total = (scope: TrendScopeRef) => (store.get(keyOf(keys.trendTotal(scope))) ?? {}) as TrendTotal;
  const count = (model: EnvModel, field: string, n = 1) => (model.events[field] = (model.events[field] ?? 0) + n);

  for (const step of ops) {
    now += step.hours * 3_600_000 + 1;
    if (step.kind === 'deleteApplication') {
      const applicationId = APPS[step.app]!;
      if (appDeleted.has(applicationId)) continue;
      const environments = ENVS.filter((e) => e.applicationId === applicationId).map((e) => total(envScope(e)));
      const before = { total: total(appScope({ organizationId: ORG, applicationId })), environments };
      apply(
        store,
        projectedWrites([applicationTrends.project(before, undefined, { organizationId: ORG, applicationId, now })]),
      );
      appDeleted.add(applicationId);
      continue;
    }
    const env = ENVS[step.env]!;
    const model = models[step.env]!;
    if (model.deleted || appDeleted.has(env.applicationId)) continue;
    const read = total(envScope(env));
    if (step.kind === 'deleteEnvironment') {
      const before: EnvironmentTrends = {
        version: read.version,
        scannedDay: read.scannedDay,
        findings: new Map(),
        rules: new Map(),
        counted: read,
      };
      apply(store, projectedWrites([environmentTrends.project(before, undefined, { env, now })]));
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
      apply(store, projectedWrites([environmentTrends.project(before, after, { env, now })]));
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
    apply(store, projectedWrites([environmentTrends.project(before, after, { env, now, policy })]));
  }
  return { store, models, appDeleted, today: dayOf(now) };
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

/** A scope's stored figures (its total's, without its state and zeros) and its day items summed. */
function stored(store: Store, scope: TrendScopeRef) {
  const totalItem = store.get(keyOf(keys.trendTotal(scope))) ?? {};
  const figures = (item: Item) =>
    Object.fromEntries(
      Object.entries(item).filter(
        ([field, n]) => typeof n === 'number' && n !== 0 && !['seq', 'version', 'scannedDay', 'day'].includes(field),
      ),
    ) as Record<string, number>;
  const days = [...store.entries()]
    .filter(([id, item]) => item.entity === 'trendDay' && id === keyOf(keys.trendDay(scope, item.day as number)))
    .map(([, item]) => item);
  const summed: Record<string, number> = {};
  for (const day of days)
    for (const [field, n] of Object.entries(figures(day))) summed[field] = (summed[field] ?? 0) + n;
  return {
    total: figures(totalItem),
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

describe('the trend figures projections', () => {
  it('leave what a recomputation from the findings gives, for random publications, triage and deletes', () => {
    fc.assert(
      fc.property(olderData, fc.array(op, { maxLength: 30 }), (older, ops) => {
        const { store, models, appDeleted, today } = run(older, ops);
        const appLive = (i: number) => !appDeleted.has(ENVS[i]!.applicationId);
        const scannedDay = (i: number) =>
          (store.get(keyOf(keys.trendTotal(envScope(ENVS[i]!)))) as TrendTotal | undefined)?.scannedDay;
        const coveredCount = (members: number[], w: number) =>
          members.filter(
            (i) => !models[i]!.deleted && appLive(i) && scannedDay(i) !== undefined && scannedDay(i)! > today - w,
          ).length;
        const scopes: [TrendScopeRef, number[], boolean][] = [
          ...ENVS.map(
            (e, i) => [envScope(e), [i], !models[i]!.deleted && appLive(i)] as [TrendScopeRef, number[], boolean],
          ),
          ...APPS.map(
            (applicationId) =>
              [
                appScope({ organizationId: ORG, applicationId }),
                ENVS.flatMap((e, i) => (e.applicationId === applicationId ? [i] : [])),
                !appDeleted.has(applicationId),
              ] as [TrendScopeRef, number[], boolean],
          ),
          [orgScope(ORG), ENVS.map((_, i) => i), true],
        ];
        for (const [scope, members, live] of scopes) {
          if (!live) continue; // its total is marked deleted; its items go with the cascade
          const counts = stored(store, scope);
          // Environments of older data not written since count nothing yet (their first write counts them).
          const counted = (i: number) =>
            (store.get(keyOf(keys.trendTotal(envScope(ENVS[i]!)))) as TrendTotal | undefined)?.version !== undefined;
          const expected = recomputed(
            models,
            (i) => members.includes(i) && !models[i]!.deleted && appLive(i) && counted(i),
            (i) => members.includes(i),
          );
          const { start7: _s7, stop7: _t7, start30: _s30, stop30: _t30, ...figures } = counts.total;
          expect(figures, JSON.stringify(scope)).toEqual(expected);
          expect(counts.days).toEqual(counts.total);
          for (const w of COVERAGE_WINDOWS) expect(covered(counts.dayItems, w, today)).toBe(coveredCount(members, w));
        }
        // Every severity's figures are named as the trends name them.
        for (const field of Object.keys(stored(store, orgScope(ORG)).total))
          expect(field).toMatch(
            new RegExp(
              `^(open|new|fixed|reopened)(${TREND_SEVERITIES.join('|')})$|^(fixTimeMs|slaDue|slaMet|start\\d+|stop\\d+)$`,
            ),
          );
      }),
      { numRuns: 300 },
    );
  });
});
