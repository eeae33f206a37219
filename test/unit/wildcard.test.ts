import { describe, expect, it } from 'vitest';
import { wildcardMatcher } from '../../shared/input/wildcard.ts';

describe('wildcardMatcher', () => {
  const anchored = (pattern: string) => wildcardMatcher(pattern, { anchored: true, ignoreCase: false });
  const contains = (pattern: string) => wildcardMatcher(pattern, { anchored: false, ignoreCase: true });

  it('matches whole values with * standing for any characters (tag filters)', () => {
    expect(anchored('main')('main')).toBe(true);
    expect(anchored('main')('mainline')).toBe(false);
    expect(anchored('feat*')('feature/x')).toBe(true);
    expect(anchored('*x')('feature/x')).toBe(true);
    expect(anchored('f*e*x')('feature/x')).toBe(true);
    expect(anchored('f*z*x')('feature/x')).toBe(false);
    expect(anchored('a*a')('a')).toBe(false); // the pieces may not overlap
    expect(anchored('*')('')).toBe(true);
    expect(anchored('a.b')('axb')).toBe(false); // no regular-expression meaning
    expect(anchored('Main')('main')).toBe(false);
  });

  it('matches parts of names case-insensitively (team search)', () => {
    expect(contains('eng')('Platform Engineering Team')).toBe(true);
    expect(contains('plat*team')('Platform Engineering Team')).toBe(true);
    expect(contains('team*plat')('Platform Engineering Team')).toBe(false);
    expect(contains('(')('a(b')).toBe(true);
  });

  it('answers pathological patterns at once (a backtracking regex took seconds per extra star)', () => {
    const name = 'Platform Engineering Team'.repeat(10);
    expect(contains(`${'*'.repeat(200)}Q`)(name)).toBe(false);
    expect(anchored(`branch:${'*'.repeat(200)}Q`)(`branch:${'a'.repeat(1000)}`)).toBe(false);
    expect(anchored(`${'a*'.repeat(100)}b`)('a'.repeat(1000))).toBe(false);
  });

  it('refuses patterns over the documented length', () => {
    expect(() => anchored('x'.repeat(256))).toThrow(/255/);
  });
});
