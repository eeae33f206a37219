import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parsed, sourcesUnder, whereIs } from './shared-sources.ts';

// One retry policy, in one place (shared/db/retry.ts): every retry in shared/ goes through retryOnConflict with its
// CONFLICT_ATTEMPTS or PEER_ATTEMPTS. A count of attempts written anywhere else (a constant, an `attempts: 5`, a
// loop's `attempt < 3`) is a second policy: this test finds them by the compiler's reading of the code.

/** The words of a name: `maxAttempts` and `MAX_ATTEMPTS` are both max, attempts. */
const wordsOf = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
/** A name that holds a count of attempts or retries (`MAX_ATTEMPTS`, `retries`; not `ATTEMPT_LOG_LENGTH`). */
const isCountName = (name: string) => wordsOf(name).some((word) => ['attempts', 'retries', 'tries'].includes(word));
/** A name that counts attempts in a loop or a retry (`attempt`, `attempts`, `tries`). */
const isCounterName = (name: string) =>
  wordsOf(name).some((word) => ['attempt', 'attempts', 'retries', 'tries'].includes(word));

function numberIn(node: ts.Node | undefined): number | undefined {
  if (!node) return undefined;
  if (ts.isNumericLiteral(node)) return Number(node.text.replace(/_/g, ''));
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node))
    return numberIn(node.expression);
  return undefined;
}

const nameOf = (node: ts.Node | undefined): string | undefined =>
  node && (ts.isIdentifier(node) || ts.isStringLiteral(node) || ts.isPrivateIdentifier(node))
    ? node.text
    : node && ts.isPropertyAccessExpression(node)
      ? node.name.text
      : undefined;

const COMPARISONS = new Set([
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
  ts.SyntaxKind.EqualsEqualsEqualsToken,
]);

/** Where `source` writes a count of attempts: `path:line name = n`. */
export function attemptCounts(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    // const MAX_ATTEMPTS = 5; { attempts: 3 }; (attempts = 8) => ...; enum { RETRIES = 2 }
    if (
      ts.isVariableDeclaration(node) ||
      ts.isPropertyAssignment(node) ||
      ts.isPropertyDeclaration(node) ||
      ts.isParameter(node) ||
      ts.isBindingElement(node) ||
      ts.isEnumMember(node)
    ) {
      const name = nameOf(node.name);
      const value = numberIn(node.initializer);
      if (name && isCountName(name) && value !== undefined) found.push(`${whereIs(source, node)} ${name} = ${value}`);
    }
    // attempt < 3, attempts >= 5: a loop or a check bounding attempts by a number of its own.
    if (ts.isBinaryExpression(node) && COMPARISONS.has(node.operatorToken.kind)) {
      for (const [counter, bound] of [
        [node.left, node.right],
        [node.right, node.left],
      ] as const) {
        const name = nameOf(counter);
        const value = numberIn(bound);
        if (name && isCounterName(name) && value !== undefined && value >= 2)
          found.push(`${whereIs(source, node)} ${name} bounded by ${value}`);
      }
    }
    // positiveInt('WEBHOOK_MAX_ATTEMPTS', 8): a setting's default count.
    if (ts.isCallExpression(node)) {
      const setting = node.arguments.find((arg) => ts.isStringLiteral(arg) && isCountName(arg.text));
      const value = node.arguments.map((arg) => numberIn(arg)).find((v) => v !== undefined);
      if (setting && value !== undefined)
        found.push(`${whereIs(source, node)} ${(setting as ts.StringLiteral).text} = ${value}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the retry policy', () => {
  it('is the only count of attempts in shared/: two constants, in shared/db/retry.ts', () => {
    const counts = sourcesUnder('shared').flatMap(attemptCounts);
    expect(counts.map((where) => where.replace(/:\d+ /, ' '))).toEqual([
      'shared/db/retry.ts CONFLICT_ATTEMPTS = 8',
      'shared/db/retry.ts PEER_ATTEMPTS = 8',
    ]);
  });

  it('sees a count of attempts written anywhere else', () => {
    const source = parsed(
      'shared/example.ts',
      [
        'const MAX_ATTEMPTS = 5;',
        'const launchRetries = 2 as const;',
        'await retryOnConflict({ attempts: 3, conflict }, write);',
        'export async function send(items: unknown[], attempts = 8) {}',
        'for (let attempt = 0; attempt < 4; attempt++) await write();',
        'if (attempt >= 3) return;',
        "const max = positiveInt('WEBHOOK_MAX_ATTEMPTS', 8);",
        // Not counts of attempts: a first-attempt check, a log's length, a list of attempts.
        'if (attempt > 1) reread();',
        'const ATTEMPT_LOG_LENGTH = 20;',
        'const record = { attempts: [] };',
        'const MAX_ENTRIES = 10_000;',
      ].join('\n'),
    );
    expect(attemptCounts(source)).toEqual([
      'shared/example.ts:1 MAX_ATTEMPTS = 5',
      'shared/example.ts:2 launchRetries = 2',
      'shared/example.ts:3 attempts = 3',
      'shared/example.ts:4 attempts = 8',
      'shared/example.ts:5 attempt bounded by 4',
      'shared/example.ts:6 attempt bounded by 3',
      'shared/example.ts:7 WEBHOOK_MAX_ATTEMPTS = 8',
    ]);
  });
});
