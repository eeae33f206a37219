import { describe, expect, it } from 'vitest';
import { openIssuesOf } from '../../shared/results/issue-summary.ts';
import { createHash } from 'node:crypto';
import {
  issueToolsOf,
  mayBeShared,
  sharedIssuesOf,
  SHARED_ISSUES_KEPT,
  TOOLS_KEPT,
} from '../../shared/results/model.ts';

// An environment's open issues' summary (shared/results/issue-summary.ts): what the findings report reads instead of
// the environment's findings (docs/DATA-MODEL.md, Findings report).

const finding = (findingHash: string, issueId: string | undefined, stream: string | undefined, gone = {}) => ({
  findingHash,
  issueId,
  stream,
  ...gone,
});

describe('open issues summary', () => {
  it('counts the distinct issues of open findings (a record before issues: its hash), fixed or verified ones not', () => {
    const summary = openIssuesOf([
      finding('a', 'X', 'zap'),
      finding('b', 'X', 'zap'),
      finding('c', undefined, undefined),
      finding('d', 'Y', 'zap', { fixedAt: 1 }),
      finding('e', 'Z', 'zap', { verifiedFixedAt: 2 }),
    ]);
    expect(summary).toEqual({ count: 2, streams: ['hawkscan', 'zap'], tools: { X: ['zap'], c: ['hawkscan'] } });
    expect(issueToolsOf(summary, 'X')).toEqual(['zap']);
    expect(issueToolsOf(summary, 'Y')).toEqual([]);
  });

  it('with one stream, names it for any issue and keeps no map; stale: unknown', () => {
    const summary = openIssuesOf([finding('a', 'X', 'wapiti'), finding('b', 'Y', 'wapiti')]);
    expect(summary).toEqual({ count: 2, streams: ['wapiti'] });
    expect(issueToolsOf(summary, 'X')).toEqual(['wapiti']);
    expect(openIssuesOf([])).toEqual({ count: 0, streams: [] });
    expect(issueToolsOf({ ...summary, stale: true }, 'X')).toBeUndefined();
  });

  it('lists the tools of at most TOOLS_KEPT issues: a larger environment of several streams keeps its count, its item bounded', () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => finding(`h${i}`, 'f'.repeat(63) + i, i % 2 ? 'zap' : 'wapiti'));
    const kept = openIssuesOf(many(TOOLS_KEPT));
    expect(Object.keys(kept.tools ?? {})).toHaveLength(TOOLS_KEPT);
    expect(JSON.stringify(kept).length).toBeLessThan(100_000);
    const large = openIssuesOf(many(TOOLS_KEPT + 1));
    expect(large).toEqual({ count: TOOLS_KEPT + 1, streams: ['wapiti', 'zap'] });
    // Its tools are not known from the summary: the report reads the findings (shared/findings/report.ts).
    expect(issueToolsOf(large, 'f'.repeat(63) + 1)).toBeUndefined();
  });
});

describe('shared issues summary', () => {
  const id = (n: number) => createHash('sha256').update(String(n)).digest('hex');

  it('rules out exactly the issues of one finding record: every issue of two or more may be shared', () => {
    // 3,000 records in 2,000 issues: issue i has 1, 2 or 3 findings (i % 3 + 1) for i < 1,000, one otherwise.
    const records = Array.from({ length: 2000 }, (_, i) => i).flatMap((i) =>
      Array.from({ length: i < 1000 ? (i % 3) + 1 : 1 }, (_, k) => ({ findingHash: `${i}-${k}`, issueId: id(i) })),
    );
    const summary = sharedIssuesOf(records);
    expect(summary.count).toBe(666);
    const test = mayBeShared(summary);
    const sizes = new Map<string, number>();
    for (const r of records) sizes.set(r.issueId, (sizes.get(r.issueId) ?? 0) + 1);
    const wrong = [...sizes].filter(([issue, n]) => test(issue) !== n > 1);
    expect(wrong).toEqual([]); // no prefix of a shared issue is a single one's here (a collision only reads more)
    expect(summary.prefixes!.length).toBe(666 * 4);
  });

  it('names none, so every issue may be shared, without a summary, past its limit or with a record before issues', () => {
    expect(mayBeShared(undefined)(id(1))).toBe(true);
    const single = [{ findingHash: 'a', issueId: id(1) }];
    expect(sharedIssuesOf(single)).toEqual({ count: 0 });
    expect(mayBeShared(sharedIssuesOf(single))(id(1))).toBe(false);
    const unassigned = sharedIssuesOf([...single, { findingHash: 'b', issueId: undefined }]);
    expect(unassigned).toEqual({ count: 0, unknown: true });
    expect(mayBeShared(unassigned)(id(1))).toBe(true);
    const many = Array.from({ length: SHARED_ISSUES_KEPT + 1 }, (_, i) => i).flatMap((i) => [
      { findingHash: `${i}a`, issueId: id(i) },
      { findingHash: `${i}b`, issueId: id(i) },
    ]);
    const past = sharedIssuesOf(many);
    expect(past).toEqual({ count: SHARED_ISSUES_KEPT + 1, unknown: true });
    expect(mayBeShared(past)(id(-1))).toBe(true);
  });
});
