import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The layers of shared/, by folder (a file at its top counts as a folder of its own name; docs/LAYOUT.md, Layers):
// the kernel at the bottom, the resources above it in one order, the composition on top. The file-level test
// (import-cycles.test.ts) cannot see a loop that goes through different files of the same folders; this one merges
// every import into an arrow from shared/<folder> to shared/<folder>. Type-only imports count.

const shared = join(import.meta.dirname, '../../shared');

/** What every resource may use: the table, input rules, errors, configuration, limits, the request's context, list
 * paging, outbound address checks, objects, tokens, sealing, protobuf. They import only each other. */
const KERNEL = new Set([
  'db',
  'input',
  'errors',
  'config',
  'limits',
  'context',
  'lists',
  'outbound',
  'storage',
  'auth',
  'secrets',
  'proto',
]);

/** The resources, lowest first: each imports the kernel and the resources before it, never one after it. */
const RESOURCES = [
  'audit',
  'applications',
  'identity',
  'sso',
  'teams',
  'hosted-assets',
  'code-repositories',
  'policies',
  'scan-configurations',
  'results',
  'webhooks',
  'governance',
  'trends',
  'trackers',
  'findings',
  'scans',
  'delivery',
  'perch',
  'profiles',
  'schedules',
  'deletions',
  'overview',
];

/** On top: the HTTP pipeline, the route table, the service pages, the table's upgrade steps. */
const COMPOSITION = new Set(['http', 'routes', 'service', 'table-migration']);

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

const rank = (folder: string) =>
  KERNEL.has(folder) ? -1 : COMPOSITION.has(folder) ? RESOURCES.length : RESOURCES.indexOf(folder);

/** The imports of arrows that run up: from the kernel to a resource or the composition, from a resource to a later
 * one or to the composition. */
const upwardImports = (arrows: Map<string, string[]>) =>
  [...arrows].flatMap(([arrow, imports]) => {
    const [from, to] = arrow.split(' -> ');
    return rank(to) > rank(from) || (KERNEL.has(from) && !KERNEL.has(to)) ? imports : [];
  });

describe('the folders of shared/', () => {
  const arrows = folderArrows();

  it('each belong to one layer', () => {
    const folders = readdirSync(shared).map((name) => name.replace(/\.tsx?$/, ''));
    const unplaced = folders.filter((f) => !KERNEL.has(f) && !COMPOSITION.has(f) && !RESOURCES.includes(f));
    expect(unplaced).toEqual([]);
  });

  it('import only what is below them', () => {
    expect(upwardImports(arrows)).toEqual([]);
  });

  it('form no loops', () => {
    expect(loopsOf(arrows.keys())).toEqual([]);
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
      ['scans -> findings', ['scans/import.ts: ../findings/scan-findings.ts']],
      ['findings -> scans', ['findings/report.ts: ../scans/scans.ts']],
      ['perch -> http', ['perch/commands.ts: ../http/caller.ts']],
    ]);
    expect(upwardImports(imports)).toEqual([
      'db/index-keys.ts: ../applications/model.ts',
      'findings/report.ts: ../scans/scans.ts',
      'perch/commands.ts: ../http/caller.ts',
    ]);
  });
});
