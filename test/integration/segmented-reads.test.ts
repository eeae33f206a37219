import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batchPut, collect, prefixRange, queryItems, segmentedItems } from '../../shared/db/query.ts';
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
