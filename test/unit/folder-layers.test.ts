import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The layers of shared/, by folder (a file at its top counts as a folder of its own name): the kernel at the bottom
// (the table, input checks, errors, configuration, limits and the request's context: scope, logger, Caller), the
// resources above it, the composition (the HTTP pipeline, the route table, the registries) on top. The file-level
// test (import-cycles.test.ts) cannot see a loop that goes through different files of the same folders; this one
// merges every import into an arrow from shared/<folder> to shared/<folder>. Type-only imports count.

const shared = join(import.meta.dirname, '../../shared');
const KERNEL = new Set(['db', 'input', 'errors', 'config', 'limits', 'context']);

/**
 * The folder loops that remain, each as its folders sorted. A ratchet: this list may only shrink; breaking a loop
 * (moving a record type or a pure rule to its resource's model.ts, or a use case up to the composition) means
 * taking its folders out here. Empty is the goal.
 */
const ALLOWED_LOOPS: string[][] = [
  [
    'applications',
    'audit',
    'code-repositories',
    'findings',
    'governance',
    'hosted-assets',
    'http',
    'identity',
    'perch',
    'policies',
    'profiles',
    'routes',
    'scan-configurations',
    'scans',
    'sso',
    'teams',
    'trackers',
    'trends',
    'webhooks',
  ],
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

const folderOf = (file: string) =>
  relative(shared, file)
    .split('/')[0]
    .replace(/\.tsx?$/, '');

/** Every arrow between two folders of shared/, with the imports that make it (`file: specifier`). */
function folderArrows(): Map<string, string[]> {
  const arrows = new Map<string, string[]>();
  for (const file of filesUnder(shared)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), fileName);
      if (!target.startsWith(shared + '/')) continue;
      const [from, to] = [folderOf(file), folderOf(target)];
      if (from === to) continue;
      const arrow = `${from} -> ${to}`;
      arrows.set(arrow, [...(arrows.get(arrow) ?? []), `${relative(shared, file)}: ${fileName}`]);
    }
  }
  return arrows;
}

/** The loops of a graph: its strongly connected components of more than one folder (Tarjan), each sorted. */
function loopsOf(arrows: Iterable<string>): string[][] {
  const next = new Map<string, string[]>();
  for (const arrow of arrows) {
    const [from, to] = arrow.split(' -> ');
    next.set(from, [...(next.get(from) ?? []), to]);
    if (!next.has(to)) next.set(to, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const loops: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const to of next.get(node)!) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) loops.push(component.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return loops.sort((a, b) => a.join().localeCompare(b.join()));
}

/** The imports of arrows that go from a kernel folder to one above it. */
const upwardImports = (arrows: Map<string, string[]>) =>
  [...arrows].flatMap(([arrow, imports]) => {
    const [from, to] = arrow.split(' -> ');
    return KERNEL.has(from) && !KERNEL.has(to) ? imports : [];
  });

describe('the folders of shared/', () => {
  const arrows = folderArrows();

  it('import nothing above the kernel from the kernel', () => {
    expect(upwardImports(arrows)).toEqual([]);
  });

  it('form no loops but the allowed ones, which may only shrink', () => {
    expect(loopsOf(arrows.keys())).toEqual(ALLOWED_LOOPS);
  });

  it('are seen to loop and to skip a layer when they do', () => {
    expect(loopsOf(['a -> b', 'b -> c', 'c -> a', 'c -> d', 'd -> e', 'e -> d'])).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
    expect(loopsOf(['db -> context', 'applications -> db'])).toEqual([]);
    const imports = new Map([
      ['db -> context', ['db/client.ts: ../context/request-scope.ts']],
      ['db -> applications', ['db/index-keys.ts: ../applications/model.ts']],
    ]);
    expect(upwardImports(imports)).toEqual(['db/index-keys.ts: ../applications/model.ts']);
  });
});
