import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TransactItem } from '../../shared/db/transactions.ts';
import { keys, type TrendScopeRef } from '../../shared/db/keys.ts';
import { expectRecomputed, keyOf, olderData, op, play, worldOf, type Item, type TrendTable } from './trend-model.ts';

// The trend figures' projections (docs/DATA-MODEL.md, Projections; docs/GOVERNANCE.md, Trends) are pure: for random
// sequences of publications, triage, environment and application deletes (trend-model.ts), their items are applied
// in memory, their conditions checked against what is stored, and what is stored must equal a recomputation from
// the findings. test/integration/trend-projections.test.ts plays the same on DynamoDB Local, and
// test/integration/trends.test.ts checks the figures day by day through the API.

type Store = Map<string, Item>;

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

/** A table in memory. */
function inMemory(): TrendTable {
  const store: Store = new Map();
  const inScope = (scope: TrendScopeRef, id: string, item: Item) =>
    id === keyOf(keys.trendTotal(scope)) ||
    (item.entity === 'trendDay' && id === keyOf(keys.trendDay(scope, item.day as number)));
  return {
    itemsOf: async (scope) =>
      [...store.entries()]
        .filter(([id, item]) => inScope(scope, id, item))
        .map(([id, item]) => ({
          pk: id.split('|')[0],
          sk: id.split('|')[1],
          ...item,
        })),
    commit: async (items) => apply(store, items),
  };
}

describe('the trend figures projections', () => {
  it('leave what a recomputation from the findings gives, for random publications, triage and deletes', async () => {
    const world = worldOf('x');
    await fc.assert(
      fc.asyncProperty(olderData, fc.array(op, { maxLength: 30 }), async (older, ops) => {
        const table = inMemory();
        await expectRecomputed(world, await play(world, older, ops, table), table);
      }),
      { numRuns: 300 },
    );
  });
});
