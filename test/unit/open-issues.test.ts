import { describe, expect, it } from 'vitest';
import { issueToolsOf, openIssuesOf } from '../../shared/results/issue-summary.ts';

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
});
