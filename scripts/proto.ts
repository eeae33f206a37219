// `npm run proto`: writes the protobuf definitions the API answers with.
//  1. shared/proto/<package>.proto: messages mirroring the public OpenAPI description's schemas, generated for
//     every response type the route table names (and the types they reference). Field numbers follow the
//     alphabetical order of the fields: the public service's numbers are not published.
//     The schemas come from scripts/reference/stackhawk-schemas.json: the schema facts of the public description
//     (no prose), shipped in the repository so that a clone builds alone. `npm run proto -- --schemas-from
//     <stackhawk-openapi.json>` refreshes that file from a newer public description, then regenerates.
//  2. shared/proto/descriptor.json: every .proto file of shared/proto (the generated ones and the hand-written
//     hawk.proto) compiled with protobufjs, which the handlers load at run time without a .proto parser.
// test/unit/generated.test.ts fails when either is stale.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { routes } from '../shared/routes.ts';
import { UNSPECIFIED } from '../shared/proto/unspecified.ts';

const PROTO_DIR = new URL('../shared/proto/', import.meta.url).pathname;
const SCHEMAS = new URL('./reference/stackhawk-schemas.json', import.meta.url).pathname;
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

/**
 * Fields of ours in public messages, where the public API leaves room for them (JSON clients ignore fields they do
 * not know): appended after the public ones, numbered from OWN_FIELD_NUMBERS so that a newer public description's
 * fields never take their numbers. Add at the end of a list only (the numbers are positions).
 */
const OWN_FIELDS: Record<string, [field: string, type: string][]> = {
  // The scan secrets a started scan's literal credentials moved to (docs/HOSTED-SCANS.md, "Scan secrets").
  'user.ProvisionPerchResponse': [['movedSecrets', 'repeated string']],
  // When a risk acceptance made by a bulk triage action expires (docs/GOVERNANCE.md).
  'application.FindingTriageResult': [['expiresAt', 'string']],
  // A finding's due date in its alert's page of findings (docs/GOVERNANCE.md), and its ticket beside its status
  // (statusLink: where the ticket is; docs/TRACKERS.md); the parameter that is part of its identity
  // (docs/DATA-MODEL.md, Findings), which tells apart the findings of one URI.
  'application.ApplicationAlertUri': [
    ['dueDate', 'string'],
    ['daysLeft', 'int32'],
    ['overdue', 'bool'],
    ['ticketKey', 'string'],
    ['ticketStatus', 'string'],
    ['param', 'string'],
  ],
  // The findings report's due dates and triage details (docs/GOVERNANCE.md).
  'reports.CurrentFindingRow': [
    ['dueDate', 'string'],
    ['daysLeft', 'int32'],
    ['overdue', 'bool'],
    ['triagedBy', 'string'],
    ['triagedByName', 'string'],
    ['triagedAt', 'string'],
    ['triageNote', 'string'],
    ['riskAcceptedUntil', 'string'],
    // When a retest found the finding gone (docs/HOSTED-SCANS.md, Retests).
    ['verifiedFixedAt', 'string'],
    // The issue the finding is a detection of, and the tools that detect it (docs/ISSUES.md).
    ['issueId', 'string'],
    ['detectedBy', 'repeated string'],
    // Who is to act on it (docs/API.md, Assignees).
    ['assigneeId', 'string'],
    ['assigneeName', 'string'],
  ],
  // The number of distinct issues open in the report's environments (docs/ISSUES.md, The findings report).
  'reports.CurrentFindingsResponse': [['totalIssues', 'int32']],
  // A finding's ticket in GitHub, as application.JiraConfig has it for Jira (docs/TRACKERS.md).
  'application.GithubConfig': [
    ['id', 'string'],
    ['issueStatus', 'string'],
    ['key', 'string'],
    ['keyUrl', 'string'],
  ],
  // A profile scan's suggested configuration and the probe's own figures (docs/PROFILE-SCANS.md).
  'scanresults.ProfileScanResult': [
    ['suggestedScanConfig', 'string'],
    ['requestsSent', 'int32'],
    ['durationMs', 'int64'],
    ['stoppedBy', 'string'],
    ['notes', 'repeated string'],
    ['discoveredOpenapiSpecStatus', 'string'],
    ['discoveredOpenapiSpecVersion', 'string'],
    ['discoveredOpenapiSpecProblem', 'string'],
  ],
};
const OWN_FIELD_NUMBERS = 1001;

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
        // proto3 enums start at 0, which is what an unset field reads as. Where the public enum has UNKNOWN, that is
        // the zero value; where it lacks one, the zero is UNSPECIFIED, a value of ours that the answers never carry
        // (shared/proto/encoding.ts leaves such a field out of the JSON; docs/COMPATIBILITY.md "Enum values").
        if (schema.enum.includes(UNSPECIFIED))
          throw new Error(`${name}.${field}: the public enum has a value ${UNSPECIFIED}, which the generator reserves`);
        const values = schema.enum.includes('UNKNOWN')
          ? ['UNKNOWN', ...schema.enum.filter((v) => v !== 'UNKNOWN')]
          : [UNSPECIFIED, ...schema.enum];
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
    for (const [index, [field, type]] of (OWN_FIELDS[name] ?? []).entries())
      fields.push(`  ${type} ${field} = ${OWN_FIELD_NUMBERS + index};`);
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
  const files = readdirSync(PROTO_DIR)
    .filter((f) => f.endsWith('.proto'))
    .sort();
  root.loadSync(
    files.map((f) => join(PROTO_DIR, f)),
    { keepCase: true },
  );
  root.resolveAll();
  return JSON.stringify(root.toJSON(), null, 1) + '\n';
}

export function generatedProtoFiles(): Map<string, string> {
  const { schemas } = JSON.parse(readFileSync(SCHEMAS, 'utf8')) as { schemas: Record<string, Schema> };
  const roots = [
    ...new Set(
      routes.map((r) => r.response).filter((r) => !['empty', 'noContent', 'raw'].includes(r) && !r.startsWith('hawk.')),
    ),
  ];
  return generate(schemas, roots);
}

/** The keys of a schema the generator reads; descriptions and examples (prose) are left out. */
function schemaFacts(schema: Schema): Schema {
  const facts: Schema = {};
  for (const key of ['type', 'format', '$ref', 'enum', 'writeOnly'] as const)
    if (schema[key] !== undefined) Object.assign(facts, { [key]: schema[key] });
  if (schema.items) facts.items = schemaFacts(schema.items);
  if (schema.properties)
    facts.properties = Object.fromEntries(Object.entries(schema.properties).map(([name, p]) => [name, schemaFacts(p)]));
  if (schema.additionalProperties !== undefined)
    facts.additionalProperties =
      typeof schema.additionalProperties === 'object'
        ? schemaFacts(schema.additionalProperties)
        : schema.additionalProperties;
  return facts;
}

/**
 * Rewrites scripts/reference/stackhawk-schemas.json from copies of the public OpenAPI descriptions: the current one,
 * then older ones (the January 2026 one has schemas of operations the current one lacks, e.g. upsertAlertRule);
 * where both define a schema the current one wins.
 */
function refreshSchemas(descriptionPaths: string[]): void {
  const merged: Record<string, Schema> = {};
  const sources: string[] = [];
  for (const path of [...descriptionPaths].reverse()) {
    const raw = readFileSync(path);
    const spec = JSON.parse(raw.toString('utf8')) as {
      info: { title: string; version: string };
      components: { schemas: Record<string, Schema> };
    };
    Object.assign(merged, spec.components.schemas);
    sources.unshift(
      `${path.split('/').pop()} (${spec.info.title} ${spec.info.version}, sha256 ${createHash('sha256').update(raw).digest('hex')})`,
    );
  }
  const schemas = Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((name) => [name, schemaFacts(merged[name])]),
  );
  const source =
    `components.schemas of the public StackHawk OpenAPI descriptions (https://download.stackhawk.com/openapi/): ${sources.join('; ')}, ` +
    'the first winning, reduced to the keys scripts/proto.ts reads. Refresh: npm run proto -- --schemas-from <stackhawk-openapi.json> <stackhawk-openapi-2026-01.json>';
  writeFileSync(SCHEMAS, JSON.stringify({ source, schemas }, null, 1) + '\n');
}

if (process.argv[1]?.endsWith('proto.ts')) {
  const from = process.argv.indexOf('--schemas-from');
  if (from !== -1) {
    const paths = process.argv.slice(from + 1).filter((a) => !a.startsWith('-'));
    if (!paths.length)
      throw new Error('--schemas-from needs the path of a stackhawk-openapi.json (then older descriptions)');
    refreshSchemas(paths);
  }
  for (const file of readdirSync(PROTO_DIR)) {
    if (file.endsWith('.proto') && file !== HAND_WRITTEN) writeFileSync(join(PROTO_DIR, file), ''); // stale packages
  }
  for (const [file, text] of generatedProtoFiles()) writeFileSync(join(PROTO_DIR, file), text);
  for (const file of readdirSync(PROTO_DIR)) {
    if (file.endsWith('.proto') && readFileSync(join(PROTO_DIR, file), 'utf8') === '')
      unlinkSync(join(PROTO_DIR, file));
  }
  writeFileSync(join(PROTO_DIR, 'descriptor.json'), compileDescriptor());
  console.log(`wrote ${PROTO_DIR}`);
}
