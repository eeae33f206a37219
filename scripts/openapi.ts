// `npm run openapi`: writes openapi.json, the service's own OpenAPI description, generated from the route table
// (operations, parameters, bodies, permissions, audit types) and the protobuf response messages (schemas).
// test/unit/generated.test.ts fails when the committed file is stale or invalid. The scanner client's types
// (scanner/src/api/schema.gen.ts) are regenerated from it too (docs/LAYOUT.md, the scanner row).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as z from 'zod/mini';
import descriptor from '../shared/proto/descriptor.json' with { type: 'json' };
import { routes } from '../shared/routes.ts';
import { pathParameterNames, type Route } from '../shared/http/route.ts';
import { UNSPECIFIED } from '../shared/proto/unspecified.ts';

type JsonSchema = Record<string, unknown>;
interface ProtoField {
  type: string;
  rule?: string;
  keyType?: string;
}
interface ProtoNode {
  fields?: Record<string, ProtoField>;
  values?: Record<string, number>;
  nested?: Record<string, ProtoNode>;
}

const OUTPUT = new URL('../openapi.json', import.meta.url).pathname;
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** Every protobuf message as a JSON Schema of its proto3 JSON form (int64 as strings), keyed `package.Message`. */
function messageSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const walk = (node: ProtoNode, prefix: string) => {
    for (const [name, child] of Object.entries(node.nested ?? {})) {
      const full = prefix ? `${prefix}.${name}` : name;
      if (child.fields) {
        const enums = child.nested ?? {};
        const fieldSchema = (type: string): JsonSchema => {
          const enumNode = enums[type];
          // UNSPECIFIED is the generated zero of an enum without a public UNKNOWN: the answers never carry it
          if (enumNode?.values)
            return { type: 'string', enum: Object.keys(enumNode.values).filter((v) => v !== UNSPECIFIED) };
          switch (type) {
            case 'int64':
            case 'uint64':
            case 'sint64':
            case 'fixed64':
              return { type: 'string', format: 'int64', pattern: '^-?[0-9]+$' };
            case 'int32':
            case 'uint32':
            case 'sint32':
              return { type: 'integer', format: 'int32' };
            case 'double':
            case 'float':
              return { type: 'number' };
            case 'bool':
              return { type: 'boolean' };
            case 'string':
              return { type: 'string' };
            default:
              return { $ref: `#/components/schemas/${type.replace(/^\./, '')}` };
          }
        };
        const properties: Record<string, JsonSchema> = {};
        for (const [field, spec] of Object.entries(child.fields)) {
          const item = fieldSchema(spec.type);
          properties[field] = spec.keyType
            ? { type: 'object', additionalProperties: item }
            : spec.rule === 'repeated'
              ? { type: 'array', items: item }
              : item;
        }
        schemas[full] = { type: 'object', properties, additionalProperties: false };
      }
      if (!child.values) walk(child, full);
    }
  };
  walk(descriptor as ProtoNode, '');
  return schemas;
}

const jsonSchema = (schema: z.core.$ZodType): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

function operationOf(route: Route) {
  const parameters: JsonSchema[] = pathParameterNames(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: route.params?.shape[name]
      ? jsonSchema(route.params.shape[name])
      : name.endsWith('Id')
        ? { type: 'string', pattern: UUID_PATTERN }
        : { type: 'string' },
  }));
  for (const [name, schema] of Object.entries(route.query?.shape ?? {})) {
    const description = z.globalRegistry.get(schema)?.description;
    parameters.push({
      name,
      in: 'query',
      required: !z.safeParse(schema, undefined).success,
      schema: jsonSchema(schema),
      ...(description ? { description } : {}),
    });
  }
  if (route.auth === 'apiKey')
    parameters.push({ name: 'X-ApiKey', in: 'header', required: true, schema: { type: 'string' } });

  const mediaTypes = route.mediaTypes ?? ['application/json', 'application/x-protobuf'];
  const schemaFor = (mediaType: string) =>
    route.responseField && mediaType === 'application/json'
      ? (messageSchemas()[route.response].properties as Record<string, JsonSchema>)[route.responseField]
      : { $ref: `#/components/schemas/${route.response}` };
  const ok =
    route.response === 'empty' || route.response === 'noContent'
      ? { description: route.response === 'empty' ? 'OK (empty body)' : 'No Content' }
      : {
          description: 'OK',
          content: Object.fromEntries(
            mediaTypes.map((t) => [
              t,
              {
                schema:
                  t === 'text/csv'
                    ? { type: 'string' }
                    : route.response === 'raw'
                      ? {
                          type: 'object',
                          description: route.rawSchema?.description,
                          externalDocs: { url: route.rawSchema?.url },
                        }
                      : schemaFor(t),
              },
            ]),
          ),
        };
  const notes = [
    route.notes,
    route.permission ? `Requires the \`${route.permission}\` permission.` : undefined,
    route.audit ? `Writes a \`${route.audit}\` user-activity entry in the same transaction as the change.` : undefined,
  ].filter(Boolean);
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: notes.join('\n\n'),
    ...(route.auth !== 'bearer' ? { security: [] } : {}),
    ...(route.permission ? { 'x-permission': route.permission } : {}),
    ...(route.audit ? { 'x-audit-type': route.audit } : {}),
    parameters,
    ...(route.body
      ? { requestBody: { required: false, content: { 'application/json': { schema: jsonSchema(route.body) } } } }
      : {}),
    ...(route.rawBody
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              route.rawBody.contentTypes.map((t) => [
                t,
                { schema: { type: 'string', maxLength: route.rawBody!.maxBytes } },
              ]),
            ),
          },
        }
      : {}),
    responses: {
      [route.response === 'noContent' ? '204' : '200']: ok,
      '400': error('Invalid input: `message` names what was wrong'),
      '401': error('Missing, expired or insufficient authentication'),
      '404': error('No such route or resource'),
      '406': error('The Accept header allows none of the offered media types'),
      '429': {
        ...error('Rate limit reached; retry after `Retry-After` seconds'),
        headers: { 'Retry-After': { schema: { type: 'integer' } } },
      },
    },
  };
}

export function buildOpenApi() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'hawk-api: application security scan management',
      version: '0.0.1',
      description:
        'A self-hostable service speaking the public StackHawk API. Generated from shared/routes.ts by `npm run openapi`.',
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'npm start' }],
    security: [{ BearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        Error: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
        ...messageSchemas(),
      },
    },
  };
}

export const openApiText = () => JSON.stringify(buildOpenApi(), null, 2) + '\n';

if (process.argv[1]?.endsWith('openapi.ts')) {
  writeFileSync(OUTPUT, openApiText());
  console.log(`wrote ${OUTPUT}`);
  execFileSync('npm', ['run', '--silent', '-w', '@hawk-api/scanner', 'generate'], {
    cwd: new URL('..', import.meta.url).pathname,
    stdio: 'inherit',
  });
}
