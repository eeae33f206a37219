// House style (issue 44's interfaces): no function in scanner/src longer than 120 lines, measured with the
// TypeScript compiler from a function's first line to its last (nested functions count in their parent too).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', 'src');
const MAX_LINES = 120;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every function of a file (declarations, methods, accessors, constructors, arrows, expressions) with its length. */
function functionLengths(path: string): { name: string; lines: number }[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
      found.push({ name: `${relative(ROOT, path)}:${first + 1} ${name}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

it('measures the functions of scanner/src (a check that finds none would pass anything)', () => {
  const all = sources(ROOT).flatMap(functionLengths);
  expect(all.length).toBeGreaterThan(100);
  // The measure itself: a known two-line arrow in a file of the tree.
  expect(all.some((f) => f.lines > 1 && f.lines <= 3)).toBe(true);
});

it(`has no function longer than ${MAX_LINES} lines in scanner/src`, () => {
  const tooLong = sources(ROOT)
    .flatMap(functionLengths)
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.name}: ${f.lines} lines`);
  expect(tooLong).toEqual([]);
});
