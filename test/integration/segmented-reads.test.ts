import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  batchDelete,
  batchGet,
  batchPut,
  collect,
  prefixRange,
  queryItems,
  queryAll,
  rangeOrKeys,
  rememberedSegmentsList,
  segmentedItems,
  type PartitionQuery,
} from '../../shared/db/query.ts';
import { runInScope } from '../../shared/context/request-scope.ts';
import { keys } from '../../shared/db/keys.ts';
import { countedUriList, countedUrisOfScan } from '../../shared/results/scan-repository.ts';
import type { AlertRecord } from '../../shared/results/model.ts';

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

// rememberedSegmentsList (shared/db/query.ts): a whole range read again by the same process is read as segments cut
// where its last read found every 250th item, side by side, and still gives exactly queryAll's items after writes
// and deletes that move, remove or outgrow those cuts; on the table and on an index.
describe('a range read again, in the segments its last read cut', () => {
  it("gives queryAll's items in one round trip after the first read's sequential pages", async () => {
    const partition = `TEST#remembered#${randomUUID()}`;
    const padding = 'x'.repeat(700);
    const skOf = (i: number) => `R#${String(i).padStart(5, '0')}`;
    const itemOf = (i: number) => ({ pk: partition, sk: skOf(i), gsi4pk: partition, gsi4sk: skOf(i), padding });
    // 2,400 items of ~750 bytes: two 1 MB pages for one Query; then ten segments of 250.
    await batchPut(Array.from({ length: 2_400 }, (_, i) => itemOf(i)));
    for (const query of [{ partition }, { index: 'gsi4', partition }] as PartitionQuery[]) {
      const read = async () => {
        const scope = { requestId: 'remembered', dynamodbCalls: 0 } as {
          requestId: string;
          dynamodbCalls: number;
          dynamodbRoundTrips?: number;
        };
        const items = await runInScope(scope, () => rememberedSegmentsList(query));
        expect(items).toEqual(await queryAll(query));
        return { items, calls: scope.dynamodbCalls, roundTrips: scope.dynamodbRoundTrips };
      };
      const first = await read();
      expect(first.items).toHaveLength(2_400);
      expect(first.calls).toBeGreaterThan(1);
      expect(first.roundTrips).toBe(first.calls);
      const second = await read();
      expect(second.calls).toBe(10);
      expect(second.roundTrips).toBe(1);
    }
    // The item at a cut (the 250th) and its neighbours gone, new ones between cuts and past the last: the same
    // segments, other items.
    await batchDelete([249, 250, 251].map((i) => ({ pk: partition, sk: skOf(i) })));
    const added = [`${skOf(250)}a`, `${skOf(1_000)}a`, 'R#99999'];
    await batchPut(added.map((sk) => ({ ...itemOf(0), sk, gsi4sk: sk })));
    for (const query of [{ partition }, { index: 'gsi4', partition }] as PartitionQuery[]) {
      const scope = { requestId: 'remembered-again', dynamodbCalls: 0 };
      const items = await runInScope(scope, () => rememberedSegmentsList(query));
      expect(items).toEqual(await queryAll(query));
      expect(items).toHaveLength(2_400);
      expect(scope.dynamodbCalls).toBe(10);
    }
  }, 60_000);
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

// countedUriList (shared/results/scan-repository.ts): a scan's counted URIs read all at once, as the diff and the SARIF
// export read them, are exactly those countedUrisOfScan gives one by one, in its order, on a scan larger than a
// 1 MB page and than a segment: URIs outside an alert's committed ranges, past its nextUri, of an unknown plugin or of
// a plugin whose id extends another's are left out in both.
describe("a scan's counted URIs read all at once", () => {
  it('gives what countedUrisOfScan gives, URI for URI, and only hashes and alerts when asked', async () => {
    const scan = { applicationId: randomUUID(), environmentId: randomUUID(), scanId: randomUUID() };
    const alertOf = (pluginId: string, uriCount: number, nextUri: number, committed?: [number, number][]) =>
      ({
        pluginId,
        name: `Plugin ${pluginId}`,
        severity: 'High',
        description: '',
        cweId: '79',
        references: [],
        uriCount,
        nextUri,
        ...(committed ? { committed } : {}),
      }) as AlertRecord;
    const alerts = [
      alertOf('40012', 1_300, 1_500, [
        [1_200, 300],
        [0, 1_000],
      ]),
      alertOf('40012#b', 40, 40),
      alertOf('10020', 1_500, 1_500),
      alertOf('10021', 1_200, 1_200),
    ];
    const counts: [string, number][] = [
      ['40012', 1_500],
      ['40012#b', 40],
      ['10020', 1_510], // 10 past nextUri: never counted
      ['10021', 1_200],
      ['99999', 30], // no alert of the scan's
    ];
    const padding = 'x'.repeat(600);
    // ~4,300 items of ~750 bytes: about 3 MB, several 1 MB pages, in segments of about 2,000 URIs.
    await batchPut(
      counts.flatMap(([pluginId, count]) =>
        Array.from({ length: count }, (_, n) => ({
          ...keys.alertUri(scan.applicationId, scan.environmentId, scan.scanId, pluginId, n),
          n,
          pluginId,
          // Several URIs of one finding (3 each), and parameters on some.
          findingHash: `${pluginId}-${Math.floor(n / 3)}`,
          uri: `/items/${pluginId}/${n}`,
          requestMethod: n % 2 ? 'GET' : 'POST',
          ...(n % 5 ? { param: `p${n}` } : {}),
          padding,
        })),
      ),
    );
    const range = keys.urisOfScan(scan.applicationId, scan.environmentId, scan.scanId);
    const scope = { requestId: 'one-query', dynamodbCalls: 0 };
    await runInScope(scope, () => collect(queryItems({ partition: range.pk, skFrom: range.skFrom, skTo: range.skTo })));
    expect(scope.dynamodbCalls).toBeGreaterThan(2);

    const oneByOne = await collect(countedUrisOfScan(scan, alerts));
    expect(oneByOne).toHaveLength(1_300 + 40 + 1_500 + 1_200);
    expect(await countedUriList(scan, alerts)).toEqual(oneByOne);
    const hashes = await countedUriList(scan, alerts, { hashesOnly: true });
    expect(hashes.map((u) => [u.alert, u.findingHash])).toEqual(oneByOne.map((u) => [u.alert, u.findingHash]));
    expect(hashes.every((u) => u.uri === '' && u.requestMethod === '' && u.param === '')).toBe(true);
  }, 60_000);
});
