import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

/**
 * The ratchet on what a resource still calls in another resource beyond its model.ts: repository reads and writes and
 * use cases (counted as import declarations, `file: specifier`). It only goes down: lower it when a call moves into a
 * model.ts or behind a projection, never raise it (docs/LAYOUT.md, Layers).
 */
// 267 on the branch that made the models; 276 once merged with the projection registry (a use case naming another
// resource's entity kind: applicationOwners, environmentOverdue, ...) and the applications-by-risk read; 280 with the
// riskiest applications' upgrade step (results/riskiest.ts: counts findings, writes the applications' ranked
// entries); 278 once the walk over every organization moved to the kernel (db/backfill.ts).
const CROSS_RESOURCE_CALLS = 278;

const isModel = (file: string) => /^[^/]+\/model\.ts$/.test(relative(shared, file));

/** An import's bindings: each one's local name, and whether it is written as a type (`import type`, `type X`). */
function bindingsOf(declaration: ts.ImportDeclaration): { local: string; typeOnly: boolean }[] {
  const clause = declaration.importClause;
  if (!clause) return [];
  const bindings: { local: string; typeOnly: boolean }[] = [];
  if (clause.name) bindings.push({ local: clause.name.text, typeOnly: clause.isTypeOnly });
  const named = clause.namedBindings;
  if (named && ts.isNamespaceImport(named)) bindings.push({ local: named.name.text, typeOnly: clause.isTypeOnly });
  if (named && ts.isNamedImports(named))
    for (const element of named.elements)
      bindings.push({ local: element.name.text, typeOnly: clause.isTypeOnly || element.isTypeOnly });
  return bindings;
}

/** The names a file uses as values (outside every type position, so TypeScript keeps their imports). */
function valueNames(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isTypeNode(node) || ts.isInterfaceDeclaration(node)) return;
    if (ts.isTypeAliasDeclaration(node)) return;
    // A class's `extends` names a value (a type node only in the syntax tree).
    if (ts.isHeritageClause(node) && node.token === ts.SyntaxKind.ExtendsKeyword && ts.isClassLike(node.parent)) {
      for (const type of node.types) visit(type.expression);
      return;
    }
    if (ts.isIdentifier(node)) {
      const parent = node.parent;
      const member =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        ((ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertyDeclaration(parent)) &&
          parent.name === node) ||
        (ts.isBindingElement(parent) && parent.propertyName === node);
      if (!member) names.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

interface Import {
  file: string;
  target: string;
  /** `file: specifier` */
  line: string;
  /** Bindings used only as types (erased at runtime). */
  types: string[];
  /** Bindings used as values (a side-effect import or a re-export counts as one). */
  values: string[];
}

/** Every relative import and re-export of the files of shared/, with its bindings split into types and values. */
function importsOf(): Import[] {
  return filesUnder(shared).flatMap((file) => {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const values = valueNames(source);
    return source.statements.flatMap((statement): Import[] => {
      if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) return [];
      const specifier = statement.moduleSpecifier;
      if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) return [];
      const target = resolve(dirname(file), specifier.text);
      if (!target.startsWith(shared + '/')) return [];
      const line = `${relative(shared, file)}: ${specifier.text}`;
      if (ts.isExportDeclaration(statement)) return [{ file, target, line, types: [], values: ['(re-export)'] }];
      const bindings = bindingsOf(statement);
      if (bindings.length === 0) return [{ file, target, line, types: [], values: ['(side effect)'] }];
      const typed = bindings.filter((b) => b.typeOnly || !values.has(b.local)).map((b) => b.local);
      const used = bindings.filter((b) => !typed.includes(b.local)).map((b) => b.local);
      return [{ file, target, line, types: typed, values: used }];
    });
  });
}

/** Whether a file loads, through its value imports, the DynamoDB client or an AWS SDK package. */
function reachesClient(file: string, imports: Map<string, Import[]>, externals: Map<string, string[]>): string[] {
  const seen = new Set<string>();
  const path: string[] = [];
  const visit = (at: string): boolean => {
    if (seen.has(at)) return false;
    seen.add(at);
    path.push(relative(shared, at));
    if (relative(shared, at) === 'db/client.ts' || (externals.get(at) ?? []).some((e) => e.startsWith('@aws-sdk/')))
      return true;
    for (const i of imports.get(at) ?? []) if (i.values.length > 0 && visit(i.target)) return true;
    path.pop();
    return false;
  };
  return visit(file) ? path : [];
}

/** The packages a file imports (not type-only). */
function externalsOf(): Map<string, string[]> {
  return new Map(
    filesUnder(shared).map((file) => {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const packages = source.statements.flatMap((s) =>
        ts.isImportDeclaration(s) &&
        ts.isStringLiteral(s.moduleSpecifier) &&
        !s.moduleSpecifier.text.startsWith('.') &&
        !s.importClause?.isTypeOnly
          ? [s.moduleSpecifier.text]
          : [],
      );
      return [file, packages];
    }),
  );
}

/** The names a resource's module passes on from another module (`export ... from`, `export { imported }`). */
function reExports(): string[] {
  return filesUnder(shared)
    .filter((file) => RESOURCES.includes(folderOf(file)))
    .flatMap((file) => {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const imported = new Set(
        source.statements.filter(ts.isImportDeclaration).flatMap((d) => bindingsOf(d).map((b) => b.local)),
      );
      return source.statements.flatMap((statement) => {
        if (!ts.isExportDeclaration(statement)) return [];
        if (statement.moduleSpecifier) return [`${relative(shared, file)}: ${statement.getText(source)}`];
        const clause = statement.exportClause;
        const passed =
          clause && ts.isNamedExports(clause)
            ? clause.elements.filter((e) => imported.has((e.propertyName ?? e.name).text))
            : [];
        return passed.map((e) => `${relative(shared, file)}: export { ${e.getText(source)} }`);
      });
    });
}

/** Imports from one resource's folder into another's, and whether they reach beyond its model.ts. */
const crossResource = (imports: Import[]) =>
  imports.filter((i) => {
    const [from, to] = [folderOf(i.file), folderOf(i.target)];
    return from !== to && RESOURCES.includes(from) && RESOURCES.includes(to);
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

describe("the resources' models", () => {
  const imports = importsOf();
  const byFile = new Map<string, Import[]>();
  for (const i of imports) byFile.set(i.file, [...(byFile.get(i.file) ?? []), i]);
  const externals = externalsOf();
  const models = RESOURCES.map((folder) => join(shared, folder, 'model.ts'));

  it('are one model.ts in each resource folder', () => {
    expect(RESOURCES.filter((folder) => !existsSync(join(shared, folder, 'model.ts')))).toEqual([]);
  });

  it('import only the kernel and other models', () => {
    const stray = imports.filter((i) => isModel(i.file) && !KERNEL.has(folderOf(i.target)) && !isModel(i.target));
    expect(stray.map((i) => i.line)).toEqual([]);
  });

  it('are pure: they load no DynamoDB client nor AWS SDK', () => {
    const impure = models.filter(existsSync).flatMap((model) => {
      const path = reachesClient(model, byFile, externals);
      return path.length > 0 ? [path.join(' -> ')] : [];
    });
    expect(impure).toEqual([]);
  });

  it('hold every type one resource takes from another', () => {
    const types = crossResource(imports).filter((i) => !isModel(i.target) && i.types.length > 0);
    expect(types.map((i) => `${i.line} (${i.types.join(', ')})`)).toEqual([]);
  });

  it('are imported from, not passed on: no resource module re-exports another module', () => {
    expect(reExports()).toEqual([]);
  });

  it('leave no more calls across resources than the ratchet', () => {
    const calls = crossResource(imports).filter((i) => !isModel(i.target));
    expect(calls.length).toBeLessThanOrEqual(CROSS_RESOURCE_CALLS);
  });

  it('are told apart from types by how a name is used', () => {
    const source = ts.createSourceFile(
      'x.ts',
      "import { a, type B, C, d, E } from './m.ts';\nconst x: C = a(d as unknown as B);\nlet y: typeof d;\nclass F extends E {}",
      ts.ScriptTarget.Latest,
      true,
    );
    expect([...valueNames(source)].filter((n) => ['a', 'B', 'C', 'd', 'E'].includes(n)).sort()).toEqual([
      'E',
      'a',
      'd',
    ]);
  });
});
