import { describe, expect, it } from 'vitest';
import { pageOfSets, type DiffFinding, type DiffSet, type Found } from '../../shared/scans/diff.ts';

// A scan diff's pages (docs/DATA-MODEL.md, Scan diffs, Pages): a window from an offset through the sets in their
// order, cut at pageSize entries or at a size of JSON, at least one entry each, so an answer stays below Lambda's
// 6 MB however large the scans and their URIs.

const SEVERITIES = ['High', 'Medium', 'Low', 'Info'];

function found(n: number, set: string, uriLength = 20): Found {
  return {
    cweId: '79',
    finding: {
      findingHash: `${set}-${String(n).padStart(4, '0')}`,
      issueId: '',
      pluginId: String(40000 + (n % 3)),
      name: `finding ${n}`,
      severity: SEVERITIES[n % 4]!,
      method: 'GET',
      uri: `https://shop.test/${'p'.repeat(uriLength)}/${n}`,
      param: 'q',
    },
  };
}

const setsOf = (sizes: Record<DiffSet, number>, uriLength?: number) =>
  Object.fromEntries(
    Object.entries(sizes).map(([set, size]) => [set, Array.from({ length: size }, (_, n) => found(n, set, uriLength))]),
  ) as Record<DiffSet, Found[]>;

const entries = (listed: Record<DiffSet, DiffFinding[]>) => [
  ...listed.new,
  ...listed.regressed,
  ...listed.fixed,
  ...listed.unchanged,
];

/** Every page from offset 0, following nextPageToken. */
function allPages(sets: Record<DiffSet, Found[]>, pageSize: number, maxBytes?: number) {
  const pages: DiffFinding[][] = [];
  let made = 0;
  const toEntry = (f: Found) => {
    made++;
    return { ...f.finding, issueId: `issue-of-${f.finding.findingHash}` };
  };
  for (let token = '0'; token;) {
    const { listed, nextPageToken } = pageOfSets(sets, { pageSize, pageToken: Number(token) }, toEntry, maxBytes);
    pages.push(entries(listed));
    token = nextPageToken;
  }
  return { pages, made };
}

describe('scan diff pages', () => {
  const sizes = { new: 5, regressed: 2, fixed: 0, unchanged: 9 };

  it('list every entry once, in order, through new, regressed, fixed, then unchanged', () => {
    const whole = allPages(setsOf(sizes), 20_000);
    expect(whole.pages).toHaveLength(1);
    const [all] = whole.pages;
    expect(all!.map((e) => e.findingHash.split('-')[0])).toEqual([
      ...Array(5).fill('new'),
      ...Array(2).fill('regressed'),
      ...Array(9).fill('unchanged'),
    ]);
    // Within a set: most severe first.
    const ranks = all!.slice(0, 5).map((e) => SEVERITIES.indexOf(e.severity));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    for (const pageSize of [1, 3, 4, 7, 16]) {
      const paged = allPages(setsOf(sizes), pageSize);
      expect(paged.pages).toHaveLength(Math.ceil(16 / pageSize));
      for (const page of paged.pages) expect(page.length).toBeLessThanOrEqual(pageSize);
      expect(paged.pages.flat()).toEqual(all);
      // Only the listed entries are made (their issues computed).
      expect(paged.made).toBe(16);
    }
  });

  it('end a page once its JSON reaches the byte bound, with at least one entry', () => {
    const sets = setsOf(sizes, 300);
    const bound = 3 * Buffer.byteLength(JSON.stringify({ ...sets.new[0]!.finding, issueId: 'issue-of-new-0000' }));
    const { pages } = allPages(sets, 20_000, bound);
    expect(pages.flat().map((e) => e.findingHash)).toEqual(allPages(sets, 20_000).pages[0]!.map((e) => e.findingHash));
    expect(pages.length).toBeGreaterThan(3);
    for (const [n, page] of pages.entries()) {
      const bytes = page.map((e) => Buffer.byteLength(JSON.stringify(e)));
      const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
      // A page stops at the first entry that reaches the bound: below it before that entry, at or above it with it.
      expect(sum(bytes.slice(0, -1))).toBeLessThan(bound);
      if (n < pages.length - 1) expect(sum(bytes)).toBeGreaterThanOrEqual(bound);
      expect(page.length).toBeGreaterThan(0);
    }
    // An entry larger than the bound still makes a page of its own.
    const single = allPages(sets, 20_000, 10);
    expect(single.pages).toHaveLength(16);
  });

  it('answer an empty last page past the end', () => {
    const { listed, nextPageToken } = pageOfSets(setsOf(sizes), { pageSize: 10, pageToken: 16 }, (f) => f.finding);
    expect(entries(listed)).toEqual([]);
    expect(nextPageToken).toBe('');
    const beyond = pageOfSets(setsOf(sizes), { pageSize: 10, pageToken: 1_000_000 }, (f) => f.finding);
    expect(entries(beyond.listed)).toEqual([]);
    expect(beyond.nextPageToken).toBe('');
  });
});
