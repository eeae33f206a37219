import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import protobuf from 'protobufjs/light.js';

// Per-function protobuf descriptors: a function's bundle carries the messages its code names (the route's response,
// a message a domain module validates against) and the messages those refer to, not all 170. Its code names them
// as strings ('application.Application'), so they are read from a first bundle of the function built without any
// descriptor; the function is then bundled with `#proto-descriptor` aliased to that subset (esbuild's alias).
const DESCRIPTOR = new URL('../shared/proto/descriptor.json', import.meta.url).pathname;
const EMPTY = new URL('./empty-descriptor.json', import.meta.url).pathname;

let full: protobuf.Root | undefined;
const fullRoot = (): protobuf.Root => {
  if (!full) {
    full = protobuf.Root.fromJSON(JSON.parse(readFileSync(DESCRIPTOR, 'utf8')));
    full.resolveAll();
  }
  return full;
};

/** Every message and enum of the descriptor, by full name without the leading dot. */
function allTypes(
  root: protobuf.NamespaceBase,
  into: (protobuf.Type | protobuf.Enum)[] = [],
): (protobuf.Type | protobuf.Enum)[] {
  for (const nested of root.nestedArray) {
    if (nested instanceof protobuf.Type || nested instanceof protobuf.Enum) into.push(nested);
    if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) allTypes(nested, into);
  }
  return into;
}

/** The descriptor (protobufjs JSON) of these types and every type they refer to, in their packages. */
export function descriptorOf(typeNames: string[]): protobuf.INamespace {
  const root = fullRoot();
  const needed = new Set<protobuf.ReflectionObject>();
  const add = (type: protobuf.ReflectionObject) => {
    // A nested type travels with its outermost message.
    let outer = type;
    while (outer.parent && outer.parent instanceof protobuf.Type) outer = outer.parent;
    if (needed.has(outer)) return;
    needed.add(outer);
    const visit = (t: protobuf.ReflectionObject) => {
      if (t instanceof protobuf.Type) {
        for (const field of t.fieldsArray) if (field.resolvedType) add(field.resolvedType);
        for (const inner of t.nestedArray) visit(inner);
      }
    };
    visit(outer);
  };
  for (const name of typeNames) add(root.lookup(name)!);
  const subset = new protobuf.Root();
  for (const type of needed) {
    const path = type.fullName.slice(1).split('.');
    let namespace: protobuf.NamespaceBase = subset;
    for (const part of path.slice(0, -1)) {
      let inner = namespace.get(part) as protobuf.NamespaceBase | null;
      if (!inner) namespace.add((inner = new protobuf.Namespace(part)));
      namespace = inner;
    }
    namespace.add(
      type instanceof protobuf.Type
        ? protobuf.Type.fromJSON(type.name, type.toJSON())
        : protobuf.Enum.fromJSON(type.name, (type as protobuf.Enum).toJSON() as protobuf.IEnum),
    );
  }
  return subset.toJSON();
}

/** The full names of the descriptor's types that `code` spells out as string literals. */
export function typesNamedIn(code: string): string[] {
  return allTypes(fullRoot())
    .map((type) => type.fullName.slice(1))
    .filter((name) => code.includes(`"${name}"`) || code.includes(`'${name}'`) || code.includes(`\`${name}\``));
}

/**
 * The module aliases a function is bundled with (CDK: esbuildArgs `--alias:<name>=<path>`; esbuild's API: `alias`):
 * its own protobuf descriptor (written under `dir`) and no `long` (infra/no-long.cjs).
 */
export function functionBundleAliases(entry: string, dir: string, name: string): Record<string, string> {
  return {
    '#proto-descriptor': functionDescriptorFile(entry, dir, name),
    long: new URL('./no-long.cjs', import.meta.url).pathname,
  };
}

/** Writes the descriptor a function's entry needs under `dir` and returns its path. */
export function functionDescriptorFile(entry: string, dir: string, name: string): string {
  const probe = buildSync({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    external: ['@aws-sdk/*', 'long'],
    alias: { '#proto-descriptor': EMPTY },
    logLevel: 'silent',
  });
  const file = join(dir, `${name}.json`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(descriptorOf(typesNamedIn(probe.outputFiles[0].text))));
  return file;
}
