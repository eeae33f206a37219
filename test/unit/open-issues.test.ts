import { describe, expect, it } from 'vitest';
import { openIssuesOf } from '../../shared/results/issue-summary.ts';
import { issueToolsOf, TOOLS_KEPT } from '../../shared/results/model.ts';

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
