import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The README is the short user guide and docs/LAYOUT.md says where things are; both stay true as the code moves.

const root = join(import.meta.dirname, '../..');

/** The `shared/...` paths the Path column of docs/LAYOUT.md's table names (globs such as `shared/*.ts` left out). */
function layoutPaths(): string[] {
  const rows = readFileSync(join(root, 'docs/LAYOUT.md'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  const paths = rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`(shared\/[^`]*)`/g)].map((m) => m[1]!));
  return paths.filter((path) => !path.includes('*'));
}

const sharedFolders = () =>
  readdirSync(join(root, 'shared'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `shared/${entry.name}/`);

describe('docs/LAYOUT.md', () => {
  it('names every folder of shared/ in its table', () => {
    const named = new Set(layoutPaths());
    expect(sharedFolders().filter((folder) => !named.has(folder))).toEqual([]);
  });

  it('names nothing under shared/ that does not exist, and folders as folders', () => {
    const wrong = layoutPaths().filter((path) => {
      const full = join(root, path);
      return !existsSync(full) || statSync(full).isDirectory() !== path.endsWith('/');
    });
    expect(wrong).toEqual([]);
  });
});

describe('README.md', () => {
  // The user guide: what it is, the two commands, the dashboard, the walk-through, import, deploy and configuration.
  // Internals and figures live in docs/ (docs/COMPATIBILITY.md, docs/DEPLOYMENT.md, docs/LAYOUT.md, docs/BENCHMARKS.md).
  it('is under 40 KB', () => {
    expect(statSync(join(root, 'README.md')).size).toBeLessThan(40_000);
  });

  it('links to the docs pages that hold what it leaves out', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const pages = ['COMPATIBILITY', 'DEPLOYMENT', 'LAYOUT', 'BENCHMARKS'].map((page) => `(docs/${page}.md)`);
    expect(pages.filter((page) => !readme.includes(page))).toEqual([]);
  });
});
