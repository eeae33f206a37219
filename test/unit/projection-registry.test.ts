import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as entityWrite from '../../shared/db/entity-write.ts';

// The projection registry (shared/db/entity-write.ts, EntityKind; docs/DATA-MODEL.md, Projections): every file of a
// `projections/` folder of shared/ is registered with exactly one entity kind, in a resource's `entities.ts`, and a
// projection is applied only through its kind: no other module of shared/ calls one, and the write helpers take
// kinds, never projections.

const shared = join(import.meta.dirname, '../../shared');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.ts$/.test(name) ? [path] : [];
  });
}

const files = filesUnder(shared);
const isProjection = (file: string) => basename(dirname(file)) === 'projections';
const isRegistry = (file: string) => file.endsWith('/entities.ts');
const basename = (path: string) => path.split('/').at(-1)!;
const projectionFiles = files.filter(isProjection);
const registries = files.filter(isRegistry);

/** The modules a file imports from projection files: `{ file, namespace?, names }` for each import. */
function projectionImports(file: string) {
  const text = readFileSync(file, 'utf8');
  const imports = [...text.matchAll(/import\s+(type\s+)?(\*\s+as\s+(\w+)|\{([^}]*)\})\s+from\s+'([^']+)'/g)];
  return imports
    .map((m) => ({
      target: m[5]!.startsWith('.') ? resolve(dirname(file), m[5]!) : m[5]!,
      typeOnly: m[1] !== undefined,
      namespace: m[3],
      names: (m[4] ?? '')
        .split(',')
        .map((n) => n.trim().replace(/^type\s+/, ''))
        .filter(Boolean),
    }))
    .filter((i) => isProjection(i.target));
}

/** How many times `file` uses the `project` of projection file `target` (through a namespace or by name). */
function projectUses(file: string, target: string): number {
  const text = readFileSync(file, 'utf8');
  let uses = 0;
  for (const i of projectionImports(file).filter((i) => i.target === target && !i.typeOnly)) {
    if (i.namespace) uses += [...text.matchAll(new RegExp(`\\b${i.namespace}\\.project\\b`, 'g'))].length;
    for (const name of i.names) {
      const [imported, local = imported] = name.split(/\s+as\s+/);
      if (imported === 'project') uses += [...text.matchAll(new RegExp(`\\b${local}\\b`, 'g'))].length - 1; // less the import itself
    }
  }
  return uses;
}

describe('the projection registry', () => {
  it('finds the projections and the registries', () => {
    expect(projectionFiles.length).toBeGreaterThanOrEqual(20);
    expect(registries.map((f) => relative(shared, f)).sort()).toEqual([
      'applications/entities.ts',
      'findings/entities.ts',
      'governance/entities.ts',
      'perch/entities.ts',
      'scans/entities.ts',
      'trends/entities.ts',
    ]);
  });

  it('registers each projection file with exactly one kind, once', () => {
    const registrations = projectionFiles.map((target) => ({
      projection: relative(shared, target),
      registered: registries.flatMap((registry) => {
        const uses = projectUses(registry, target);
        return uses > 0 ? [`${relative(shared, registry)} x${uses}`] : [];
      }),
    }));
    expect(registrations.filter((r) => r.registered.length !== 1 || !r.registered[0]!.endsWith(' x1'))).toEqual([]);
  });

  it('is the only way a projection is applied: no other module of shared/ calls one', () => {
    const calls = files
      .filter((file) => !isRegistry(file))
      .flatMap((file) =>
        projectionFiles
          .filter((target) => projectUses(file, target) > 0)
          .map((target) => `${relative(shared, file)} -> ${relative(shared, target)}`),
      );
    expect(calls).toEqual([]);
  });

  it('gives the write helpers kinds, never projections', () => {
    // entityWrite / entityWrites / derivedWrites / projectionOf take a kind; what nets projected writes is internal.
    expect(Object.keys(entityWrite)).not.toContain('projectedWrites');
    for (const registry of registries) {
      const text = readFileSync(registry, 'utf8');
      expect(text, relative(shared, registry)).toMatch(/entityKind</);
    }
  });

  it('names each kind once', async () => {
    const kinds = (
      await Promise.all(registries.map((registry) => import(registry) as Promise<Record<string, unknown>>))
    ).flatMap((module) =>
      Object.values(module).filter(
        (value): value is entityWrite.EntityKind<unknown, unknown> =>
          typeof value === 'object' && value !== null && 'projections' in value && 'entity' in value,
      ),
    );
    const names = kinds.map((kind) => kind.entity);
    expect(new Set(names).size).toBe(names.length);
    for (const kind of kinds) expect(Object.keys(kind.projections).length).toBeGreaterThan(0);
  });

  it('applies every registered projection of a kind, in order', () => {
    const calls: string[] = [];
    const kind = entityWrite.entityKind<{ n: number }, string>('probe', {
      a: (_, after, context) => (calls.push(`a:${context}`), { set: { a: after?.n } }),
      b: (_, after, context) => (
        calls.push(`b:${context}`),
        { counters: [{ key: { pk: 'c', sk: 'c' }, entity: 'c', add: { n: after!.n } }] }
      ),
    });
    const items = entityWrite.entityWrite(
      kind,
      { key: { pk: 'p', sk: 's' }, before: undefined, after: { n: 2 }, name: 'w' },
      'x',
    );
    expect(calls).toEqual(['a:x', 'b:x']);
    expect(items).toHaveLength(2);
    expect(items[0]!.Put!.Item).toMatchObject({ entity: 'probe', n: 2, a: 2 });
    expect(entityWrite.derivedWrites(kind, undefined, { n: 3 }, 'y')).toHaveLength(1);
    expect(entityWrite.projectionOf(kind, undefined, { n: 3 }, 'z').counters).toHaveLength(1);
  });
});
