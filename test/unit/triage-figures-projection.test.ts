import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entityKind, entityWrites } from '../../shared/db/entity-write.ts';
import { keys } from '../../shared/db/keys.ts';
import type { TransactItem } from '../../shared/db/transactions.ts';
import * as triageFigures from '../../shared/findings/projections/triage-figures.ts';
import type { TriageRule } from '../../shared/results/model.ts';
import { RISK_SEVERITIES, SEVERITIES, type RiskSeverity, type Severity } from '../../shared/input/severities.ts';
import { TRIAGE_STATUSES, isUntriaged, type TriageStatus } from '../../shared/results/model.ts';

// A finding's place in its last scan's figures and in its stream's untriaged figures is a projection of its triage
// rule (shared/findings/projections/triage-figures.ts; docs/DATA-MODEL.md, Projections): for random changes of the
// rules of findings of two scans, the scans' statistics after the write's Updates are applied to what they held
// before are exactly the statistics recomputed from the rules after it, the streams' untriaged figures after the write
// (untriagedStreams) are those recomputed, and a scan whose figures do not change is not written.

const SCANS = ['scan-a', 'scan-b'] as const;
// Plugin ids are report text: a dot, a prototype name.
const PLUGINS = ['10038', 'constructor', 'semgrep.rule.x'] as const;
const ref = (scanId: string) => ({ applicationId: 'app', environmentId: 'env', scanId });

const rule = fc.option(
  fc.constantFrom(...TRIAGE_STATUSES).map((status) => ({ status })),
  { nil: undefined },
);
const finding = fc.record({
  scanId: fc.constantFrom(...SCANS),
  pluginId: fc.constantFrom(...PLUGINS),
  severity: fc.constantFrom(...SEVERITIES),
  lastScanUris: fc.integer({ min: 0, max: 4 }),
  before: rule,
  after: rule,
});
type Finding = typeof finding extends fc.Arbitrary<infer F> ? F : never;

type Doc = Record<string, unknown>;
const statusOf = (r: { status: TriageStatus } | undefined) => r?.status ?? 'UNKNOWN';

/** A scan's statistics recomputed from its findings' rules (`base`: what the findings not written count). */
function statsOf(scanId: string, findings: Finding[], which: 'before' | 'after', base: number): Doc {
  const zeros = <K extends string>(names: readonly K[]) => Object.fromEntries(names.map((n) => [n, base]));
  const byStatus = Object.fromEntries(TRIAGE_STATUSES.map((s) => [s, zeros(SEVERITIES)])) as Record<
    string,
    Record<string, number>
  >;
  const byPluginStatus = Object.fromEntries(PLUGINS.map((p) => [p, zeros(TRIAGE_STATUSES)])) as Record<
    string,
    Record<string, number>
  >;
  for (const f of findings.filter((f) => f.scanId === scanId)) {
    byStatus[statusOf(f[which])]![f.severity] += f.lastScanUris;
    byPluginStatus[f.pluginId]![statusOf(f[which])] += f.lastScanUris;
  }
  return { stats: { byStatus, byPluginStatus } };
}

/** The untriaged figures of the scans' streams recomputed from the rules (`base` as above). */
function untriagedOf(findings: Finding[], which: 'before' | 'after', base: number) {
  const figures = Object.fromEntries(
    SCANS.map((s) => [s, Object.fromEntries(RISK_SEVERITIES.map((v) => [v, base]))]),
  ) as Record<string, Record<RiskSeverity, number>>;
  for (const f of findings)
    if (isUntriaged(statusOf(f[which])) && (RISK_SEVERITIES as readonly Severity[]).includes(f.severity))
      figures[f.scanId]![f.severity as RiskSeverity] += f.lastScanUris;
  return figures;
}

/** A document path of an expression (`#p0.#p1`) by its names. */
const pathOf = (expression: string, names: Record<string, string>) =>
  expression.split('.').map((alias) => names[alias] ?? alias);

/** The value at `path` in `doc`, if any (own properties only). */
function at(doc: Doc, path: string[]): unknown {
  let value: unknown = doc;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Doc)[segment];
  }
  return value;
}

/** Applies a counter's Update to `doc` as DynamoDB would: its condition holds, every ADD's map exists. */
function applyUpdate(doc: Doc, item: TransactItem): void {
  const { UpdateExpression, ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues } = item.Update!;
  const names = ExpressionAttributeNames ?? {};
  const values = ExpressionAttributeValues ?? {};
  for (const condition of (ConditionExpression ?? '').split(' AND ').filter(Boolean)) {
    const [, fn, operand] = /^(attribute_exists|attribute_not_exists)\((.+)\)$/.exec(condition)!;
    expect(at(doc, pathOf(operand!, names)) !== undefined).toBe(fn === 'attribute_exists');
  }
  const [, additions] = UpdateExpression!.split(' ADD ');
  for (const addition of additions!.split(', ')) {
    const [expression, value] = addition.split(' ');
    const path = pathOf(expression!, names);
    const parent = at(doc, path.slice(0, -1)) as Record<string, number>;
    expect(parent).toBeTypeOf('object');
    parent[path.at(-1)!] = (parent[path.at(-1)!] ?? 0) + (values[value!] as number);
  }
}

/** The rules' kind with this projection alone (the triageRule kind registers it with the rule's others). */
const FIGURES = entityKind<Pick<TriageRule, 'status'>, triageFigures.TriageFiguresContext>('triageRule', {
  figures: triageFigures.project,
});

describe('the triage figures projection', () => {
  it("moves the scans' statistics and the streams' untriaged figures to their recomputation", () => {
    fc.assert(
      fc.property(fc.array(finding, { maxLength: 8 }), fc.integer({ min: 0, max: 3 }), (findings, base) => {
        const writes = findings.map((f, i) => ({
          change: {
            key: { pk: 'rule', sk: String(i) },
            before: f.before,
            after: f.after ?? { status: 'UNKNOWN' as const },
            name: 'ruleChanged',
          },
          context: { finding: f, scan: ref(f.scanId) },
        }));
        const items = entityWrites(FIGURES, writes);
        // A rule after the write is never absent.
        const after = findings.map((f) => ({ ...f, after: f.after ?? { status: 'UNKNOWN' as const } }));
        for (const scanId of SCANS) {
          const doc = statsOf(scanId, findings, 'before', base);
          const expected = statsOf(scanId, after, 'after', base);
          const key = JSON.stringify(keys.scanRecord('app', 'env', scanId));
          const updates = items.filter((item) => JSON.stringify(item.Update?.Key) === key);
          expect(updates.length).toBeLessThanOrEqual(1);
          for (const update of updates) applyUpdate(doc, update);
          expect(doc).toEqual(expected);
          if (JSON.stringify(statsOf(scanId, findings, 'before', base)) === JSON.stringify(expected))
            expect(updates).toEqual([]);
        }
        // Each scan heads a stream of its own; the figures of a stream whose scan is no longer its latest stay.
        const streamsOf = (figures: Record<string, Record<RiskSeverity, number>>) =>
          Object.fromEntries(
            SCANS.map((s) => [
              `stream-${s}`,
              { scanId: s, status: 'COMPLETED' as const, startedAt: 0, ...figures[s]! },
            ]),
          );
        const places = (which: 'before' | 'after') =>
          new Map(
            findings.map((f, i) => [
              String(i),
              { scanId: f.scanId, severity: f.severity, lastScanUris: f.lastScanUris, status: statusOf(f[which]) },
            ]),
          );
        const read = streamsOf(untriagedOf(findings, 'before', base));
        const moved = triageFigures.untriagedStreams(places('before'), places('after'), read);
        const expected = streamsOf(untriagedOf(after, 'after', base));
        expect(moved ?? read).toEqual(expected);
        if (JSON.stringify(read) === JSON.stringify(expected)) expect(moved).toBeUndefined();
        // A stream another scan heads now keeps its figures.
        const replaced = { ...read, 'stream-scan-a': { ...read['stream-scan-a']!, scanId: 'scan-c' } };
        const movedReplaced = triageFigures.untriagedStreams(places('before'), places('after'), replaced);
        expect((movedReplaced ?? replaced)['stream-scan-a']).toEqual(replaced['stream-scan-a']);
      }),
    );
  });

  it("moves a finding out of its stream's figures when no scan counts it any more (a retest's fix)", () => {
    fc.assert(
      fc.property(finding, (f) => {
        const streams = {
          s: { scanId: f.scanId, status: 'COMPLETED' as const, startedAt: 0, High: 5, Medium: 5, Low: 5 },
        };
        const place = (scanId: string | undefined) => ({ ...f, scanId, status: statusOf(f.before) });
        const after = triageFigures.untriagedStreams(
          new Map([['f', place(f.scanId)]]),
          new Map([['f', place(undefined)]]),
          streams,
        );
        const counted =
          isUntriaged(statusOf(f.before)) && (RISK_SEVERITIES as readonly Severity[]).includes(f.severity);
        if (!counted || f.lastScanUris === 0) expect(after).toBeUndefined();
        else expect(after!.s![f.severity as RiskSeverity]).toBe(5 - f.lastScanUris);
      }),
    );
  });

  it('moves nothing for a finding no scan counts', () => {
    fc.assert(
      fc.property(finding, (f) => {
        const context = { finding: f, scan: undefined };
        expect(triageFigures.project(f.before, f.after, context)).toEqual({});
        const place = (r: typeof f.before) => ({ ...f, scanId: undefined, status: statusOf(r) });
        const streams = {
          s: { scanId: f.scanId, status: 'COMPLETED' as const, startedAt: 0, High: 5, Medium: 5, Low: 5 },
        };
        expect(
          triageFigures.untriagedStreams(new Map([['f', place(f.before)]]), new Map([['f', place(f.after)]]), streams),
        ).toBeUndefined();
      }),
    );
  });
});
