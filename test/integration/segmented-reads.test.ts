import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  batchGet,
  batchPut,
  collect,
  prefixRange,
  queryItems,
  rangeOrKeys,
  segmentedItems,
} from '../../shared/db/query.ts';
import { runInScope } from '../../shared/context/request-scope.ts';

// segmentedItems (shared/db/query.ts): a sort-key range read as segments side by side gives exactly the items, in
// the order, that one Query of the range gives page after page.
describe('a sort-key range read in segments', () => {
  it('gives the sequential read of a range larger than one page, item for item, whatever the splits', async () => {
    const partition = `TEST#segments#${randomUUID()}`;
    const padding = 'x'.repeat(700);
    // 2,400 items of ~750 bytes: 1.7 MB, two 1 MB pages for one Query; keys of several shapes, one astral.
    const sks = Array.from(
      { length: 2_400 },
      (_, i) => `R#${['a', 'b', 'c', '\u{1F600}'][i % 4]}#${String(i).padStart(5, '0')}`,
    );
    await batchPut(sks.map((sk) => ({ pk: partition, sk, padding })));
    await batchPut([
      { pk: partition, sk: 'Q#before' },
      { pk: partition, sk: 'S#after' },
    ]);
    const range = { partition, ...prefixRange('R#') };

    const scope = { requestId: 'segments', dynamodbCalls: 0 };
    const sequential = await runInScope(scope, () => collect(queryItems(range)));
    expect(sequential).toHaveLength(2_400);
    expect(scope.dynamodbCalls).toBeGreaterThan(1);

    const splitSets = [
      [],
      ['R#b#'],
      // An item's own key (it is the next segment's first), out-of-range and repeated splits, unsorted, and one
      // between the BMP and astral keys, which UTF-16 order and DynamoDB's byte order place differently.
      ['R#c#', sks[5]!, 'A', 'Z', 'R#b#', 'R#b#', 'R#\u{FFFF}', 'R#\u{1F600}#01000', sks[2_399]!],
    ];
    for (const splits of splitSets) {
      const segmented = await collect(segmentedItems(range, splits));
      expect(segmented.map((item) => item.sk)).toEqual(sequential.map((item) => item.sk));
      expect(segmented).toEqual(sequential);
    }
  });
});

// rangeOrKeys (shared/db/query.ts): keys read as their range, bounded, then by key past where the range stopped, give
// exactly the items batchGet gives them.
describe('keys read as a bounded range', () => {
  it('gives what batchGet gives, present or absent, whatever the bound, for fewer read units when the keys fill it', async () => {
    const partition = `TEST#rangekeys#${randomUUID()}`;
    const sks = Array.from({ length: 300 }, (_, i) => `K#${String(i).padStart(4, '0')}`);
    await batchPut(sks.map((sk, i) => ({ pk: partition, sk, n: i, note: `item ${i}`, padding: 'x'.repeat(100) })));
    await batchPut([
      { pk: partition, sk: 'J#before' },
      { pk: partition, sk: 'L#after' },
    ]);
    const key = (sk: string) => ({ pk: partition, sk });
    const byKey = (items: Record<string, unknown>[]) =>
      [...items].sort((a, b) => String(a.sk ?? a.n).localeCompare(String(b.sk ?? b.n)));
    const keySets = [
      sks.filter((_, i) => i % 2 === 0), // half of the range
      [...sks.slice(0, 40), 'K#0040a', 'K#9999', 'K#0000'.slice(0, 3)], // absent ones among them, one repeated below
      [sks[7]!, sks[7]!, sks[250]!], // a few far apart
      ['K#none1', 'K#none2'],
    ];
    for (const wanted of keySets) {
      const unique = [...new Set(wanted)];
      const expected = await batchGet(unique.map(key));
      const projected = await batchGet(unique.map(key), ['n', 'note']);
      for (const limit of [1, 5, 60, 1000]) {
        expect(byKey(await rangeOrKeys(wanted.map(key), limit)), `limit ${limit}`).toEqual(byKey(expected));
        expect(byKey(await rangeOrKeys(wanted.map(key), limit, ['n', 'note'])), `limit ${limit}`).toEqual(
          byKey(projected),
        );
      }
    }
    // Half of a range of 300 small items: a few read units as a range, 75 by key.
    const half = sks.filter((_, i) => i % 2 === 0).map(key);
    const ranged = { requestId: 'ranged', dynamodbCalls: 0 } as {
      requestId: string;
      dynamodbCalls: number;
      readUnits?: number;
    };
    await runInScope(ranged, () => rangeOrKeys(half, 2 * half.length));
    const keyed = { requestId: 'keyed', dynamodbCalls: 0 } as {
      requestId: string;
      dynamodbCalls: number;
      readUnits?: number;
    };
    await runInScope(keyed, () => batchGet(half));
    expect(keyed.readUnits).toBe(75);
    expect(ranged.readUnits).toBeLessThan(15);
    await expect(rangeOrKeys([key('K#1'), { pk: `${partition}x`, sk: 'K#2' }], 10)).rejects.toThrow(/one partition/);
  });
});
