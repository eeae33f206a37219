import { describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { api, baseUrl } from './client.ts';
import { createTenant } from './fixtures.ts';
import { alert, createApp, startScan } from './scan-helpers.ts';
import { importReport } from './import-helpers.ts';
import { getScanPolicyForOrgRoute } from '../../shared/routes.ts';
import { apiGatewayEvent } from '../../scripts/local/api-gateway-event.ts';
import { lambdaContext } from '../../scripts/local/server.ts';
import { handler as getScanPolicyForOrg } from '../../functions/get-scan-policy-for-org.ts';
import { MAX_SKIPPED_LISTED } from '@hawk-api/scanner/zap';
import { MAX_LIST_FILTER_VALUES } from '../../shared/limits.ts';
import { MAX_MARKERS } from '../../shared/scan-configurations/validation.ts';

// Answers an attack run found unsafe: prototype keys in report text, control characters in imported labels,
// answers that grow with the input, missing headers, dot segments routed differently locally and on API Gateway.
// `api()` fails any test on a 5xx.

/** A GET of the raw path as written (fetch and URL parsing would resolve its dot segments first). */
const rawGet = (path: string, token: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const url = new URL(baseUrl());
    const sent = request(
      { host: url.hostname, port: url.port, path, headers: { authorization: `Bearer ${token}` } },
      (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      },
    );
    sent.on('error', reject);
    sent.end();
  });

const sarifLog = (results: unknown[], rules: unknown[] = [{ id: '10038', name: 'CSP' }]) =>
  JSON.stringify({ runs: [{ tool: { driver: { name: 'ZAP', version: '2.16.0', rules } }, results }] });
const located = (level: string) => ({
  ruleId: '10038',
  level,
  locations: [{ physicalLocation: { artifactLocation: { uri: 'http://a.test/' } } }],
});

describe('every answer carries nosniff; token answers are never stored', () => {
  it('on JSON, errors, CSV and the server’s own answers; login and refresh with no-store', async () => {
    const tenant = await createTenant();
    const answers = {
      json: await api('GET', '/api/v1/user', { token: tenant.token }),
      badRequest: await api('GET', `/api/v2/org/${tenant.orgId}/apps`, { token: tenant.token, query: { pageSize: 0 } }),
      unauthorized: await api('GET', '/api/v1/user'),
      unknownRoute: await api('GET', '/api/v1/no-such-operation'),
      csv: await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, {
        token: tenant.token,
        headers: { accept: 'text/csv' },
      }),
      login: await api('GET', '/api/v1/auth/login', { headers: { 'x-apikey': tenant.apiKey } }),
      refresh: await api('GET', '/api/v1/auth/refresh-token', { token: tenant.token }),
    };
    expect(Object.values(answers).map((a) => a.status)).toEqual([200, 400, 401, 404, 200, 200, 200]);
    for (const [name, answer] of Object.entries(answers)) {
      expect(answer.headers.get('x-content-type-options'), name).toBe('nosniff');
      expect(answer.headers.get('cache-control'), name).toBe('no-store');
    }
  });
});

describe('dot segments are refused alike locally and on API Gateway', () => {
  it.each(['%2e%2e', '..', '%2E.', '.', '%2e'])('/api/v1/policy/{orgId}/%s answers 400 locally', async (dots) => {
    const tenant = await createTenant();
    const answer = await rawGet(`/api/v1/policy/${tenant.orgId}/${dots}`, tenant.token);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).message).toMatch(/"\." or "\.\." segment/);
  });

  it('a Lambda event whose path parameter is a dot segment answers 400 (the raw path API Gateway routes)', async () => {
    const tenant = await createTenant();
    const event = apiGatewayEvent(
      {
        method: 'GET',
        target: `/api/v1/policy/${tenant.orgId}/%2e%2e`,
        headers: [['authorization', `Bearer ${tenant.token}`]],
        body: Buffer.alloc(0),
        sourceIp: '127.0.0.1',
      },
      getScanPolicyForOrgRoute,
    );
    expect(event.pathParameters).toMatchObject({ policyName: '..' });
    const answer = await getScanPolicyForOrg(event, lambdaContext(getScanPolicyForOrgRoute));
    expect([answer.statusCode, JSON.parse(answer.body!).message]).toEqual([400, expect.stringMatching(/segment/)]);
  });
});

describe('imported report text', () => {
  it.each(['constructor', 'toString', '__proto__'])(
    'a SARIF level of %s answers 400 naming the result; nothing imported',
    async (level) => {
      const tenant = await createTenant();
      const appId = await createApp(tenant, { name: `level ${level}` });
      const answer = await importReport(tenant.token, appId, 'dev', sarifLog([located(level)]), 'application/json');
      expect([answer.status, answer.body.message]).toEqual([
        400,
        expect.stringMatching(new RegExp(`runs\\[0\\]\\.results\\[0\\].*riskcode "${level}" is not 0, 1, 2 or 3`)),
      ]);
    },
  );

  it('refuses control characters in alert names, hosts and versions, as in names (400 naming the character)', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'labels', env: 'dev' });
    const zapJson = (name: string, site: string, version = '2.11.1') =>
      JSON.stringify({
        '@version': version,
        site: [{ '@name': site, alerts: [{ pluginid: '1', name, riskcode: '1', instances: [{ uri: site }] }] }],
      });
    const cases = [
      [zapJson('CSP\u0000', 'http://a.test'), /name .*U\+0000/],
      [zapJson('\u202egnp.exe', 'http://a.test'), /name .*U\+202E/],
      [zapJson('CSP', 'http://a.test/\u001b[2J'), /site name .*U\+001B/],
      [zapJson('CSP', 'http://a.test', '2.11\ud800'), /version .*U\+D800/],
    ] as const;
    for (const [report, message] of cases) {
      const answer = await importReport(tenant.token, appId, 'dev', report, 'application/json');
      expect([answer.status, answer.body.message]).toEqual([400, expect.stringMatching(message)]);
    }
    // The reporting operations, which the CLI uses, apply the same rule.
    const start = await api('POST', `/api/v1/app/${appId}/scan`, {
      token: tenant.token,
      body: { env: 'dev', config: 'app:\n  env: dev\n', host: 'http://a.test\u0000' },
    });
    expect([start.status, start.body.message]).toEqual([400, expect.stringMatching(/host: .*U\+0000/)]);
    const scan = await startScan(tenant.token, appId, { env: 'dev' });
    const named = await api('POST', `/api/v1/scan/${scan.scanId}/alerts`, {
      token: tenant.token,
      body: { alerts: [{ ...alert('1', 'High', 1), name: 'a\u2066b' }] },
    });
    expect([named.status, named.body.message]).toEqual([400, expect.stringMatching(/name: .*U\+2066/)]);
  });

  it('answers small for the largest skipped list and the deepest unclosed XML it accepts to read', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'small answers' });
    // 40,000 results without a location: each skipped, the list summarized.
    const results = Array.from({ length: 40_000 }, () => ({ ruleId: '10038', level: 'warning', locations: [] }));
    const skipped = await importReport(tenant.token, appId, 'dev', sarifLog(results), 'application/json');
    expect(skipped.status, skipped.text.slice(0, 300)).toBe(200);
    expect(skipped.body.skipped).toHaveLength(MAX_SKIPPED_LISTED + 1);
    expect(skipped.text.length).toBeLessThan(50_000);
    // 4 MiB of open elements: one short line.
    const open = `<OWASPZAPReport>${'<a>'.repeat(Math.floor((4 * 1024 * 1024 - 100) / 3))}`;
    const unclosed = await importReport(tenant.token, appId, 'dev', open);
    expect(unclosed.status).toBe(400);
    expect(unclosed.text.length).toBeLessThan(1000);
  });
});

describe('list filters and validate answer in bounded work', () => {
  it.each([
    ['/api/v2/org/{orgId}/envs', 'envs'],
    ['/api/v1/app/{orgId}/list', 'envs'],
    ['/api/v1/reports/org/{orgId}/findings', 'envs'],
    ['/api/v2/org/{orgId}/apps', 'appIds'],
    ['/api/v1/scan/{orgId}', 'teamIds'],
  ])('%s?%s= with more than MAX_LIST_FILTER_VALUES values answers 400 naming the bound', async (path, filter) => {
    const tenant = await createTenant();
    const value = (i: number) => (filter === 'envs' ? `env-${i}` : randomUUID());
    const list = (n: number) => Array.from({ length: n }, (_, i) => value(i)).join(',');
    const url = path.replace('{orgId}', tenant.orgId);
    const over = await api('GET', url, { token: tenant.token, query: { [filter]: list(MAX_LIST_FILTER_VALUES + 1) } });
    expect([over.status, over.body.message]).toEqual([
      400,
      expect.stringContaining(`${filter}: must have at most ${MAX_LIST_FILTER_VALUES} distinct values`),
    ]);
    // The bound counts distinct values; the bound itself is accepted.
    const repeated = `${list(MAX_LIST_FILTER_VALUES)},${value(0)}`;
    expect(
      (
        await api('GET', url, {
          token: tenant.token,
          query: { [filter]: filter === 'envs' ? repeated : list(MAX_LIST_FILTER_VALUES) },
        })
      ).status,
    ).toBe(200);
  });

  it('validate lists at most MAX_MARKERS markers and counts the rest (20,000 unknown keys in the largest body)', async () => {
    const tenant = await createTenant();
    const conf = `app:\n  applicationId: ${randomUUID()}\n  env: dev\n  host: http://a.test\n${Array.from({ length: 20_000 }, (_, i) => `  k${i}: v`).join('\n')}\n`;
    const out = await api('POST', `/api/v1/configuration/${tenant.orgId}/validate`, {
      token: tenant.token,
      body: { conf },
    });
    expect(out.status, out.text.slice(0, 300)).toBe(200);
    expect(out.body.markers).toHaveLength(MAX_MARKERS + 1);
    // Each unknown key's marker at its line (k0 on line 5).
    const unknown = out.body.markers.filter((m: { code: string }) => /^app\.k\d+$/.test(m.code));
    expect(unknown.length).toBeGreaterThan(MAX_MARKERS - 5);
    for (const m of unknown) expect(m.startLineNumber).toBe(5 + Number(m.code.slice('app.k'.length)));
    expect(out.body.markers[MAX_MARKERS].message).toMatch(/^\d+ more problems not listed/);
    expect(out.text.length).toBeLessThan(60_000);
  });
});
