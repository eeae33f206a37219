import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The scanner client installs on its own (`npm ci -w @hawk-api/scanner`), so a CI job that only imports a report
// does not install the service's dependencies: its sources may import only each other, Node's built-ins and the
// packages its own package.json names.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies?: Record<string, string>;
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : /\.(ts|mjs)$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

const packageName = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('the scanner client package', () => {
  const files = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'bin'))];
  const imports = files.flatMap((file) =>
    [
      ...readFileSync(file, 'utf8').matchAll(
        /(import\s+type\s[^;']*)?(?<![.\w])(?:from\s+|import\s*\(\s*|import\s+)'([^']+)'/g,
      ),
    ].map((m) => ({
      file,
      specifier: m[2],
      typeOnly: m[1] !== undefined,
    })),
  );

  it('has sources that import nothing outside its own folder', () => {
    const outside = imports
      .filter(({ specifier }) => specifier.startsWith('.'))
      .filter(({ file, specifier }) => relative(ROOT, resolve(file, '..', specifier)).startsWith('..'));
    expect(outside).toEqual([]);
    expect(imports.length).toBeGreaterThan(10);
  });

  it('declares every package it imports, and no service dependency', () => {
    const external = imports.filter(
      ({ specifier: s }) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s),
    );
    const packages = new Set(external.filter((i) => !i.typeOnly).map((i) => packageName(i.specifier)));
    expect([...packages].filter((name) => !manifest.dependencies[name])).toEqual([]);
    // Type-only imports load nothing at run time: their @types package is a development dependency.
    const typed = new Set(external.filter((i) => i.typeOnly).map((i) => packageName(i.specifier)));
    expect(
      [...typed].filter((name) => !manifest.dependencies[name] && !manifest.devDependencies?.[`@types/${name}`]),
    ).toEqual([]);
    expect(Object.keys(manifest.dependencies).filter((name) => /aws|cdk|dynamo|middy|s3rver/.test(name))).toEqual([]);
  });
});
