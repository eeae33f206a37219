import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

// The TypeScript sources of shared/, parsed by the compiler (no type checking), for the tests that measure them.

const root = join(import.meta.dirname, '../..');

function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFilesUnder(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `text` parsed as the TypeScript file `path` (relative to the repository). */
export const parsed = (path: string, text: string) => ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);

/** Every `.ts` file under `folder` (shared/ unless said), parsed, named relative to the repository. */
export function sourcesUnder(folder = 'shared'): ts.SourceFile[] {
  return tsFilesUnder(join(root, folder)).map((file) => parsed(relative(root, file), readFileSync(file, 'utf8')));
}

/** `path:line` of a node. */
export const whereIs = (source: ts.SourceFile, node: ts.Node) =>
  `${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
