// `npm run proto`: writes the protobuf definitions the API answers with.
//  1. shared/proto/<package>.proto: messages mirroring the public OpenAPI description's schemas, generated for
//     every response type the route table names (and the types they reference). Field numbers follow the
//     alphabetical order of the fields: the public service's numbers are not published.
//  2. shared/proto/descriptor.json: every .proto file of shared/proto (the generated ones and the hand-written
//     hawk.proto) compiled with protobufjs, which the handlers load at run time without a .proto parser.
// test/unit/proto.test.ts fails when either is stale.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { routes } from '../shared/routes.ts';

const PROTO_DIR = new URL('../shared/proto/', import.meta.url).pathname;
/** Where the public descriptions are: beside the repository, or REFERENCE_DIR (e.g. from a git worktree elsewhere). */
const REFERENCE_DIR = process.env.REFERENCE_DIR ?? new URL('../../shared/reference/', import.meta.url).pathname;
const REFERENCE = join(REFERENCE_DIR, 'stackhawk-openapi.json');
/** The January 2026 description: schemas of operations the current one lacks (upsertAlertRule). */
const REFERENCE_2026 = join(REFERENCE_DIR, 'stackhawk-openapi-2026-01.json');
const HAND_WRITTEN = 'hawk.proto';

interface Schema {
  type?: string;
  format?: string;
  $ref?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  enum?: string[];
  writeOnly?: boolean;
}

/** `hawkscan.HawkConf.Spider` -> package `hawkscan`, message `HawkConf_Spider` (nested names flattened). */
export function protoName(schemaName: string): { pkg: string; message: string } {
  const parts = schemaName.split('.');
  const first = parts.findIndex((part) => /^[A-Z]/.test(part));
  return { pkg: parts.slice(0, first).join('.'), message: parts.slice(first).join('_') };
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

function generate(schemas: Record<string, Schema>, roots: string[]): Map<string, string> {
  const wanted = new Set<string>();
  const visit = (name: string) => {
    if (wanted.has(name)) return;
    if (!schemas[name]) throw new Error(`schema ${name} is not in the public OpenAPI description`);
    wanted.add(name);
    const walk = (schema: Schema | undefined): void => {
      if (!schema) return;
      if (schema.$ref) visit(schema.$ref.replace('#/components/schemas/', ''));
      walk(schema.items);
      if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties);
      for (const property of Object.values(schema.properties ?? {})) if (!property.writeOnly) walk(property);
    };
    walk(schemas[name]);
  };
  roots.forEach(visit);

  const files = new Map<string, { imports: Set<string>; messages: string[] }>();
  for (const name of [...wanted].sort()) {
    const { pkg, message } = protoName(name);
    const file = files.get(pkg) ?? { imports: new Set(), messages: [] };
    files.set(pkg, file);
    const scalar = (schema: Schema, field: string, enums: string[]): string => {
      if (schema.$ref) {
        const target = protoName(schema.$ref.replace('#/components/schemas/', ''));
        if (target.pkg !== pkg) file.imports.add(`${target.pkg}.proto`);
        return `.${target.pkg}.${target.message}`;
      }
      if (schema.enum) {
        // proto3 enums start at 0, which is what an unset field reads as: SPEC 2 calls that value UNKNOWN.
        const values = ['UNKNOWN', ...schema.enum.filter((v) => v !== 'UNKNOWN')];
        enums.push(`  enum ${pascal(field)} {\n${values.map((v, i) => `    ${v} = ${i};`).join('\n')}\n  }`);
        return pascal(field);
      }
      switch (schema.type) {
        case 'integer':
          return schema.format === 'int64' ? 'int64' : 'int32';
        case 'number':
          return schema.format === 'float' ? 'float' : 'double';
        case 'boolean':
          return 'bool';
        case 'object':
          return 'map<string, string>'; // free-form objects: not used by the routes this service serves
        default:
          return 'string';
      }
    };
    const enums: string[] = [];
    const fields = Object.entries(schemas[name].properties ?? {})
      .filter(([, schema]) => !schema.writeOnly)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([field, schema], index) => {
        let type: string;
        if (schema.type === 'array') type = `repeated ${scalar(schema.items ?? { type: 'string' }, field, enums)}`;
        else if (schema.type === 'object' && typeof schema.additionalProperties === 'object')
          type = `map<string, ${scalar(schema.additionalProperties, field, enums)}>`;
        else type = scalar(schema, field, enums);
        return `  ${type} ${field} = ${index + 1};`;
      });
    file.messages.push(`message ${message} {\n${[...enums, ...fields].join('\n')}\n}`);
  }

  const out = new Map<string, string>();
  for (const [pkg, file] of files) {
    out.set(
      `${pkg}.proto`,
      [
        '// Generated by `npm run proto` from the public OpenAPI description. Do not edit.',
        'syntax = "proto3";',
        `package ${pkg};`,
        ...[...file.imports].sort().map((i) => `import "${i}";`),
        '',
        file.messages.join('\n\n'),
        '',
      ].join('\n'),
    );
  }
  return out;
}

/** Compiles every .proto file of shared/proto into the JSON descriptor the handlers load. */
export function compileDescriptor(): string {
  const root = new protobuf.Root();
  const files = readdirSync(PROTO_DIR).filter((f) => f.endsWith('.proto')).sort();
  root.loadSync(files.map((f) => join(PROTO_DIR, f)), { keepCase: true });
  root.resolveAll();
  return JSON.stringify(root.toJSON(), null, 1) + '\n';
}

export function generatedProtoFiles(): Map<string, string> {
  type Spec = { components: { schemas: Record<string, Schema> } };
  const [current, january2026] = [REFERENCE, REFERENCE_2026].map((file) => JSON.parse(readFileSync(file, 'utf8')) as Spec);
  const roots = [...new Set(routes.map((r) => r.response).filter((r) => r !== 'empty' && !r.startsWith('hawk.')))];
  return generate({ ...january2026.components.schemas, ...current.components.schemas }, roots);
}

if (process.argv[1]?.endsWith('proto.ts')) {
  if (!existsSync(REFERENCE)) throw new Error(`The public OpenAPI description is expected at ${REFERENCE}`);
  for (const file of readdirSync(PROTO_DIR)) {
    if (file.endsWith('.proto') && file !== HAND_WRITTEN) writeFileSync(join(PROTO_DIR, file), ''); // stale packages
  }
  for (const [file, text] of generatedProtoFiles()) writeFileSync(join(PROTO_DIR, file), text);
  for (const file of readdirSync(PROTO_DIR)) {
    if (file.endsWith('.proto') && readFileSync(join(PROTO_DIR, file), 'utf8') === '') (await import('node:fs')).unlinkSync(join(PROTO_DIR, file));
  }
  writeFileSync(join(PROTO_DIR, 'descriptor.json'), compileDescriptor());
  console.log(`wrote ${PROTO_DIR}`);
}
