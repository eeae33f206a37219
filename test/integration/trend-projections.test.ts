import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { keys } from '../../shared/db/keys.ts';
import { queryAll } from '../../shared/db/query.ts';
import { transactWrite } from '../../shared/db/transactions.ts';
import { expectRecomputed, olderData, op, play, worldOf, type TrendTable } from '../unit/trend-model.ts';

// The trend figures' projections against DynamoDB Local (docs/DATA-MODEL.md, Projections): random sequences of
// publications, triage, environment and application deletes (test/unit/trend-model.ts), each write's items
// committed in one transaction (DynamoDB checks their conditions: the environment's version, the application's
// deleted mark and seq), leave what a recomputation from the findings gives in every scope's days and total.
// test/unit/trend-projections.test.ts checks the same in memory with many more sequences.

const dynamo: TrendTable = {
  itemsOf: (scope) => {
    const range = keys.trendDaysFrom(scope, 0);
    return queryAll({ partition: range.pk, skFrom: range.skFrom, skTo: range.skTo, consistent: true });
  },
  commit: async (items) => {
    if (items.length) await transactWrite(items);
  },
};

describe('the trend figures projections on DynamoDB Local', () => {
  it('leave what a recomputation from the findings gives, for random publications, triage and deletes', async () => {
    await fc.assert(
      fc.asyncProperty(olderData, fc.array(op, { maxLength: 20 }), async (older, ops) => {
        const world = worldOf(randomUUID());
        await expectRecomputed(world, await play(world, older, ops, dynamo), dynamo);
      }),
      { numRuns: 30 },
    );
  }, 120_000);
});
