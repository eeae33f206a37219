import { existsSync, readFileSync } from 'node:fs';
import { inject, expect } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { matchRoute } from '../../scripts/local/server.ts';

// The integration tests' HTTP client. Every JSON 2xx response is validated against the committed openapi.json
// (the schema of the operation the local router matched), so the description and the service cannot drift.
let ownServer: string | undefined;
export const baseUrl = () => ownServer ?? inject('baseUrl');
/** Sends this test file's requests to a server of its own (one on a table of its own: test/integration/migrate.test.ts). */
export const useServer = (url: string) => {
  ownServer = url;
};

const openapi = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
(addFormats as unknown as typeof addFormats.default)(ajv);
ajv.addSchema({ $id: 'openapi', components: openapi.components });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

/** The path of the first JSON null in a value (proto3 JSON never has one: absent fields take their defaults). */
function nullAt(value: unknown, path = '$'): string | undefined {
  if (value === null) return path;
  if (typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value as object)) {
    const found = nullAt(child, `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
}

function validateResponse(method: string, path: string, body: unknown): void {
  const route = matchRoute(method, path);
  if (!route) return;
  const schema =
    openapi.paths[route.path]?.[method.toLowerCase()]?.responses?.['200']?.content?.['application/json']?.schema;
  if (!schema) return;
  let validate = validators.get(route.operationId);
  if (!validate) {
    validate = ajv.compile(schema.$ref ? { $ref: `openapi${schema.$ref}` } : schema);
    validators.set(route.operationId, validate);
  }
  if (!validate(body)) {
    throw new Error(
      `${method} ${path}: response does not match openapi.json ${schema.$ref ?? 'schema'}: ${ajv.errorsText(validate.errors)}`,
    );
  }
  expect(nullAt(body), `${method} ${path}: a null value`).toBeUndefined();
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (string or bytes) with the given content type, instead of JSON. */
  rawBody?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | string[] | undefined>;
}

/** The server's logged ERROR lines for the request a 500 names (test/integration/global-setup.ts keeps them). */
function serverErrorsOf(status: number, text: string): string {
  const requestId = status >= 500 ? /\(request ([^)]+)\)/.exec(text)?.[1] : undefined;
  const file = ownServer ? undefined : inject('serverErrorLog');
  if (!requestId || !file || !existsSync(file)) return '';
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes(`"requestId":"${requestId}"`));
  return lines.length > 0 ? `\nlogged by the server:\n${lines.join('\n').slice(0, 4000)}` : '';
}

export async function api<T = any>(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const url = new URL(path, baseUrl());
  for (const [name, value] of Object.entries(options.query ?? {})) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(v));
  }
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers['content-type'] = options.contentType ?? 'text/plain';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(url, { method, headers, body: body as BodyInit | undefined, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = text;
  if (response.headers.get('content-type')?.includes('application/json') && text) parsed = JSON.parse(text);
  if (response.status >= 200 && response.status < 300 && typeof parsed === 'object')
    validateResponse(method, url.pathname, parsed);
  if (response.status >= 400) {
    expect(
      response.status,
      `${method} ${path} answered ${response.status}: ${text}${serverErrorsOf(response.status, text)}`,
    ).toBeLessThan(500);
    expect(typeof (parsed as { message?: unknown }).message, `${method} ${path} error body: ${text}`).toBe('string');
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}
