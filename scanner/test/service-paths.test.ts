import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { servicePath, type Request } from '../src/api/call.ts';

// The scanner names every service operation by its path in openapi.json, through src/api/call.ts (typed from
// src/api/schema.gen.ts), never by a path it builds by hand: a route renamed in the service then fails the
// typecheck. The `@ts-expect-error` lines below are checked by `tsc --noEmit -p .` (part of `npm test`).

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const EXEMPT = new Set(['api/call.ts', 'api/schema.gen.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/**
 * The lines of a source that write a service path by hand: any `/api/vN` outside comments but a whole quoted
 * literal (an openapi.json path, `{appId}` placeholders and all, which the helper's parameter type checks).
 */
function handWrittenPaths(source: string): string[] {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .split('\n')
    .map((line, i) => ({ line: line.replace(/(^|\s)\/\/.*$/, ''), number: i + 1 }))
    .filter(({ line }) => /\/api\/v\d/.test(line.replace(/(?<!\+\s*)'\/api\/v\d+\/[^'`$\s]*'(?!\s*\+)/g, '')))
    .map(({ line, number }) => `${number}: ${line.trim()}`);
}

describe('the scanner client names service operations by their openapi.json path', () => {
  it('writes no service path by hand outside src/api/call.ts', () => {
    const found = sources(SRC)
      .filter((file) => !EXEMPT.has(relative(SRC, file)))
      .flatMap((file) => handWrittenPaths(readFileSync(file, 'utf8')).map((line) => `${relative(SRC, file)}:${line}`));
    expect(found).toEqual([]);
  });

  it('tells a hand-built path from an operation named by its path', () => {
    const named = "serviceCall(api, 'GET', '/api/v1/scan/{scanId}/sla', { path: { scanId } }); // GET /api/v1/x";
    expect(handWrittenPaths(`${named}\n/** POST /api/v1/scan/{scanId}/alerts */`)).toEqual([]);
    expect(handWrittenPaths(`api.call('GET', \`/api/v1/scan/\${scanId}/sla\`);`)).toHaveLength(1);
    expect(handWrittenPaths("api.call('GET', '/api/v1/scan/' + scanId);")).toHaveLength(1);
    expect(handWrittenPaths("const path = `${base}/api/v2/org/${org}/envs`;\nconst ok = 'https://x/';")).toEqual([
      '1: const path = `${base}/api/v2/org/${org}/envs`;',
    ]);
  });

  it('puts the path parameters, encoded, into the path, then the query in its order', () => {
    expect(
      servicePath<'POST', '/api/v1/app/{appId}/perch/runs/{scanKey}/scan'>(
        '/api/v1/app/{appId}/perch/runs/{scanKey}/scan',
        {
          path: { appId: 'a/b', scanKey: 'k' },
          query: { deviceId: 'd 1', phase: 'attack' },
        },
      ),
    ).toBe('/api/v1/app/a%2Fb/perch/runs/k/scan?deviceId=d%201&phase=attack');
    expect(
      servicePath<'GET', '/api/v1/scan/{scanId}/sarif'>('/api/v1/scan/{scanId}/sarif', { path: { scanId: 's' } }),
    ).toBe('/api/v1/scan/s/sarif');
    expect(
      servicePath<'GET', '/api/v1/scan/{scanId}/sarif'>('/api/v1/scan/{scanId}/sarif', {
        path: { scanId: 's' },
        query: { part: '2', oasPath: undefined, configPath: 'a&b=c' },
      }),
    ).toBe('/api/v1/scan/s/sarif?part=2&configPath=a%26b%3Dc');
  });

  it('types each operation from openapi.json (checked by tsc)', () => {
    const typed: Request<'GET', '/api/v1/scan/{scanId}/sla'>[] = [
      { path: { scanId: 's' } },
      // @ts-expect-error a path parameter the route does not have
      { path: { appId: 's' } },
      // @ts-expect-error the path parameter is missing
      {},
    ];
    const query: Request<'PUT', '/api/v1/app/{appId}/perch/runs/{scanKey}/log'>[] = [
      { path: { appId: 'a', scanKey: 'k' }, query: { deviceId: 'd' } },
      // @ts-expect-error the required query parameter is missing
      { path: { appId: 'a', scanKey: 'k' } },
      // @ts-expect-error a query parameter the operation does not take
      { path: { appId: 'a', scanKey: 'k' }, query: { deviceId: 'd', device: 'd' } },
    ];
    // @ts-expect-error a path openapi.json does not have
    const unknown: Request<'GET', '/api/v1/scan/{scanId}/results'> | undefined = undefined;
    // @ts-expect-error an operation the path does not have (uploadScanRunLog is a PUT)
    const method: Request<'POST', '/api/v1/app/{appId}/perch/runs/{scanKey}/log'> | undefined = undefined;
    const body: Request<'POST', '/api/v1/scan/{scanId}/complete'> = {
      path: { scanId: 's' },
      // @ts-expect-error a status the operation does not take
      body: { status: 'DONE' },
    };
    expect([typed.length, query.length, unknown, method, body.path.scanId]).toEqual([3, 3, undefined, undefined, 's']);
  });
});
