import { MAX_PATTERN_LENGTH } from '../limits.ts';

// `*` patterns (team search, scan tag filters) matched in linear time: the pattern is split at its stars and the
// pieces are found left to right, so no regular expression is built from user input and nothing backtracks.

/**
 * A matcher for `pattern`, where `*` stands for any characters (none included). `anchored`: the whole text must
 * match; otherwise the pattern may match any part of it. `ignoreCase` compares lower-cased text.
 */
export function wildcardMatcher(
  pattern: string,
  options: { anchored: boolean; ignoreCase: boolean },
): (text: string) => boolean {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new RangeError(`pattern longer than ${MAX_PATTERN_LENGTH} characters`);
  const fold = (s: string) => (options.ignoreCase ? s.toLowerCase() : s);
  const pieces = fold(pattern).split('*');
  if (!options.anchored) {
    pieces.unshift('');
    pieces.push('');
  }
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  const middle = pieces.slice(1, -1).filter(Boolean);
  return (input) => {
    const text = fold(input);
    if (pieces.length === 1) return text === first;
    if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
    // Leftmost match of each middle piece is always best: it leaves the most text for the pieces after it.
    let at = first.length;
    const end = text.length - last.length;
    for (const piece of middle) {
      const found = text.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}
