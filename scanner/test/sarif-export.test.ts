import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  describedOperations,
  operationOf,
  sarifLogs,
  serializedLog,
  type ExportFinding,
  type ExportInput,
} from '../src/sarif-export/index.ts';
import { sarifSchemaErrors } from './sarif-schema.ts';

// The SARIF exporter on its own (docs/SARIF-EXPORT.md): where findings land in a description, and how a log past
// GitHub's limits is cut into parts. The service's operation and the CLI are tested end to end in
// test/integration/scan-sarif.test.ts.

const JSON_DESCRIPTION = JSON.stringify(
  {
    openapi: '3.0.3',
    info: { title: 'Shop', version: '1' },
    servers: [{ url: 'https://shop.test/api/v2' }],
    paths: {
      '/users/{id}': { get: { operationId: 'getUser', responses: {} }, delete: { responses: {} } },
      '/users/me': { get: { operationId: 'getMe', responses: {} } },
      '/files/{name}.json': { put: { responses: {} } },
    },
  },
  null,
  2,
);
const lineOf = (text: string, needle: string, after = 0) =>
  text.slice(0, text.indexOf(needle, after)).split('\n').length;

describe('describedOperations and operationOf', () => {
  const index = describedOperations(JSON_DESCRIPTION);

  it('reads every operation of a JSON description with the line of its method', () => {
    const usersAt = JSON_DESCRIPTION.indexOf('"/users/{id}"');
    expect(index.basePaths).toEqual(['/api/v2']);
    expect(index.operations).toEqual([
      { method: 'get', path: '/users/{id}', operationId: 'getUser', line: lineOf(JSON_DESCRIPTION, '"get"', usersAt) },
      { method: 'delete', path: '/users/{id}', line: lineOf(JSON_DESCRIPTION, '"delete"') },
      {
        method: 'get',
        path: '/users/me',
        operationId: 'getMe',
        line: lineOf(JSON_DESCRIPTION, '"get"', JSON_DESCRIPTION.indexOf('"/users/me"')),
      },
      { method: 'put', path: '/files/{name}.json', line: lineOf(JSON_DESCRIPTION, '"put"') },
    ]);
  });

  it('matches a request by method and path under the server path, literal segments first', () => {
    const at = (method: string, url: string) =>
      operationOf(index, method, url)?.operationId ?? operationOf(index, method, url)?.path;
    expect(at('GET', 'https://shop.test/api/v2/users/42?x=1')).toBe('getUser');
    expect(at('get', '/api/v2/users/me')).toBe('getMe');
    expect(at('DELETE', 'https://shop.test/api/v2/users/7')).toBe('/users/{id}');
    expect(at('PUT', 'https://shop.test/api/v2/files/report.json')).toBe('/files/{name}.json');
    expect(at('POST', 'https://shop.test/api/v2/users/7')).toBeUndefined();
    expect(at('GET', 'https://shop.test/users/7')).toBeUndefined(); // outside the server's path
    expect(at('GET', 'https://shop.test/api/v2/users/7/posts')).toBeUndefined();
  });

  it('reads nothing from a document that is not a description', () => {
    expect(describedOperations('{ not json: [').operations).toEqual([]);
    expect(describedOperations('- a list').operations).toEqual([]);
  });
});

function input(count: number): ExportInput {
  const findings: ExportFinding[] = Array.from({ length: count }, (_, i) => ({
    findingHash: i.toString(16).padStart(64, '0'),
    pluginId: i % 3 === 0 ? '40012' : '10038',
    requestMethod: 'GET',
    url: i % 2 === 0 ? `https://shop.test/api/v2/users/${i}` : `https://shop.test/page-${i}`,
    param: i % 3 === 0 ? 'q' : '',
    status: i % 5 === 0 ? 'FALSE_POSITIVE' : 'UNKNOWN',
    note: i % 5 === 0 ? `note ${i}` : '',
    triagedBy: '',
    triagedAt: i % 5 === 0 ? 1_700_000_000_000 : 0,
  }));
  return {
    applicationId: '0b0e5a36-3c55-4a0e-8d0c-7b7d1b3c4d5e',
    applicationName: 'Shop',
    environmentName: 'prod',
    scanId: '7f0c6d7e-1b1a-4d3c-9e8f-0a1b2c3d4e5f',
    scanStatus: 'COMPLETED',
    startedAt: 1_700_000_000_000,
    completedAt: 1_700_000_060_000,
    host: 'https://shop.test',
    toolName: 'HawkScan',
    toolVersion: '4.1.0',
    alerts: [
      {
        pluginId: '40012',
        name: 'Cross Site Scripting (Reflected)',
        severity: 'High',
        description: 'Reflected XSS.',
        cweId: '79',
        references: ['https://owasp.org/www-community/attacks/xss/', 'not a link'],
      },
      { pluginId: '10038', name: 'CSP Header Not Set', severity: 'Medium', description: '', cweId: '', references: [] },
    ],
    findings,
    description: { uri: 'api/openapi.json', operations: describedOperations(JSON_DESCRIPTION) },
    configurationUri: 'stackhawk.yml',
  };
}

describe('sarifLogs', () => {
  it('builds one schema-valid log with a result per finding, most severe first', () => {
    const logs = sarifLogs(input(30));
    expect(logs).toHaveLength(1);
    expect(sarifSchemaErrors(logs[0])).toEqual([]);
    const [run] = logs[0].runs;
    expect(run.results).toHaveLength(30);
    expect(run.results!.slice(0, 10).every((r) => r.level === 'error')).toBe(true);
    expect(run.results!.slice(10).every((r) => r.level === 'warning')).toBe(true);
    expect(run.automationDetails!.id).toBe('0b0e5a36-3c55-4a0e-8d0c-7b7d1b3c4d5e/prod');
    expect(run.tool.driver.rules!.map((r) => [r.id, r.properties!.tags])).toEqual([
      ['40012', ['security', 'dast', 'external/cwe/cwe-79']],
      ['10038', ['security', 'dast']],
    ]);
    expect(run.tool.driver.rules![1].fullDescription!.text).toBe('CSP Header Not Set'); // no description: its name
    const suppressed = run.results!.filter((r) => r.suppressions);
    expect(suppressed).toHaveLength(6);
    expect(suppressed.map((r) => r.suppressions![0].justification).sort()).toEqual(
      [0, 5, 10, 15, 20, 25].map((i) => `note ${i}`).sort(),
    );
    const located = run.results!.map((r) => r.locations![0].physicalLocation!.artifactLocation!.uri);
    expect(located.filter((uri) => uri === 'api/openapi.json')).toHaveLength(15); // /users/{id}
    expect(located.filter((uri) => uri === 'stackhawk.yml')).toHaveLength(15);
  });

  it('answers an empty, valid log for a scan without findings', () => {
    const logs = sarifLogs({ ...input(0), alerts: [] });
    expect(logs).toHaveLength(1);
    expect(sarifSchemaErrors(logs[0])).toEqual([]);
    expect(logs[0].runs[0].results).toEqual([]);
  });

  it('cuts a log past the result limit into parts that say which results they hold', () => {
    const hashesOf = (results: { partialFingerprints?: Record<string, string> }[]) =>
      results.map((r) => r.partialFingerprints!['hawkFindingHash/v1']);
    const all = hashesOf(sarifLogs(input(25))[0].runs[0].results!);
    const logs = sarifLogs(input(25), { maxResults: 10, maxGzipBytes: 10 << 20 });
    expect(logs.map((l) => l.runs[0].results!.length)).toEqual([10, 10, 5]);
    expect(hashesOf(logs.flatMap((l) => l.runs[0].results!))).toEqual(all);
    logs.forEach((log, i) => {
      expect(sarifSchemaErrors(log)).toEqual([]);
      const [run] = log.runs;
      expect(run.properties).toMatchObject({ part: i + 1, parts: 3, firstResult: i * 10, totalResults: 25 });
      expect(run.invocations![0].toolExecutionNotifications![0].message.text).toContain(`Part ${i + 1} of 3`);
      for (const r of run.results!) expect(run.tool.driver.rules![r.ruleIndex!].id).toBe(r.ruleId);
    });
    expect(new Set(logs.map((l) => l.runs[0].automationDetails!.id)).size).toBe(3);
  });

  it('halves parts until each gzips within the byte limit, and bounds the JSON when asked', () => {
    const whole = gzipSync(JSON.stringify(sarifLogs(input(200))[0])).length;
    const logs = sarifLogs(input(200), { maxResults: 25_000, maxGzipBytes: Math.ceil(whole / 3) });
    expect(logs.length).toBeGreaterThanOrEqual(3);
    for (const log of logs) expect(gzipSync(JSON.stringify(log)).length).toBeLessThanOrEqual(Math.ceil(whole / 3));
    expect(logs.reduce((n, l) => n + l.runs[0].results!.length, 0)).toBe(200);

    const bounded = sarifLogs(input(200), { maxResults: 25_000, maxGzipBytes: 10 << 20, maxJsonBytes: 100_000 });
    expect(bounded.length).toBeGreaterThan(1);
    for (const log of bounded) expect(Buffer.byteLength(JSON.stringify(log))).toBeLessThanOrEqual(100_000);
  });

  it("serializes a log as its size check did: the same JSON, and gzip's same bytes when it compressed it", () => {
    const json = JSON.stringify(sarifLogs(input(200))[0]);
    const limits = [
      { maxResults: 25_000, maxGzipBytes: Math.ceil(json.length / 2) }, // compressed to check
      { maxResults: 25_000, maxGzipBytes: 10 << 20, maxJsonBytes: 5 << 20 }, // gzip cannot reach the limit
      { maxResults: 10, maxGzipBytes: 10 << 20 }, // parts, rebuilt after the check
    ];
    for (const [i, limit] of limits.entries()) {
      for (const log of sarifLogs(input(200), limit)) {
        const serialized = serializedLog(log);
        expect(serialized.json).toBe(JSON.stringify(log));
        if (serialized.gzipped) expect(serialized.gzipped.equals(gzipSync(serialized.json))).toBe(true);
        expect(serialized.gzipped !== undefined).toBe(i === 0);
      }
    }
  });
});
