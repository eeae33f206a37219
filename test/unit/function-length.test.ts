import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parsed, sourcesUnder, whereIs } from './shared-sources.ts';

// No function longer than 120 lines in shared/: functions, methods, accessors, constructors and arrow functions,
// counted from the first line of the node to its last (its leading comment left out).

const MAX_LINES = 120;

/** Every function of `source` longer than MAX_LINES: `path:line name (n lines)`. */
export function longFunctions(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      const name = node.name?.getText(source) ?? ts.SyntaxKind[node.kind];
      if (lines > MAX_LINES) found.push(`${whereIs(source, node)} ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('functions in shared/', () => {
  it(`are at most ${MAX_LINES} lines long`, () => {
    expect(sourcesUnder('shared').flatMap(longFunctions)).toEqual([]);
  });

  it('are measured whatever their kind', () => {
    const body = Array.from({ length: MAX_LINES - 1 }, (_, i) => `  step(${i});`).join('\n');
    const source = parsed(
      'shared/example.ts',
      [
        `function fits() {\n${body.split('\n').slice(1).join('\n')}\n}`,
        `export async function declared() {\n${body}\n}`,
        `const arrow = async () => {\n${body}\n};`,
        `class Queue {\n  receive() {\n${body}\n  }\n}`,
        `const object = { send() {\n${body}\n} };`,
      ].join('\n'),
    );
    expect(longFunctions(source).map((where) => where.replace(/:\d+ /, ' '))).toEqual([
      'shared/example.ts declared (121 lines)',
      'shared/example.ts ArrowFunction (121 lines)',
      'shared/example.ts receive (121 lines)',
      'shared/example.ts send (121 lines)',
    ]);
  });
});
