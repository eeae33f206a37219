// The configuration's regexes (loggedInIndicator, loggedOutIndicator, testPath success and fail) run on RE2's
// linear-time engine (re2js, MIT): they are written by whoever edits the scan configuration and matched against
// responses whose content the target controls, on every response of a scan when the agent watches for a logged-out
// session, so a backtracking pattern must never be able to stall the scanner. RE2's syntax is JavaScript's without
// lookarounds and backreferences.
import { RE2JS } from 're2js';

export interface Pattern {
  /** The first match's text in `text`, or undefined. */
  firstMatch(text: string): string | undefined;
  test(text: string): boolean;
}

export function compilePattern(source: string): Pattern {
  const compiled = RE2JS.compile(source);
  return {
    firstMatch(text) {
      const matcher = compiled.matcher(text);
      return matcher.find() ? (matcher.group() ?? '') : undefined;
    },
    test: (text) => compiled.matcher(text).find(),
  };
}

/** Why `source` is not a pattern RE2 accepts (e.g. a lookahead), or undefined when it is one. */
export function patternProblem(source: string): string | undefined {
  try {
    RE2JS.compile(source);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
