import { describe, expect, it } from 'vitest';
import { routes, pathParameterNames } from '../../shared/routes.ts';
import { api } from './client.ts';
import { createTenant } from './fixtures.ts';

// "A client can never cause a 5xx": every operation of the route table gets hostile input — malformed ids,
// malformed JSON, wrong content types, nonsense query parameters, another organization's ids — and must answer
// with a 4xx (or 2xx) and a JSON message. `api()` itself fails the test on any 5xx.
const hostileQuery = {
  pageSize: '-1',
  pageToken: 'abc',
  sortField: '<script>',
  sortDir: 'sideways',
  appIds: 'not-a-uuid,,',
  envIds: '%00',
  page: '{"number":1}',
  query: '\u0000\u0001',
  start: '9999999999999999999999',
};

function fill(path: string, value: (name: string) => string): string {
  let result = path;
  for (const name of pathParameterNames(path)) result = result.replace(`{${name}}`, encodeURIComponent(value(name)));
  return result;
}

describe('no client input causes a 5xx', () => {
  it('holds for every route with malformed ids, bodies and query parameters', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const values: ((name: string) => string)[] = [
      () => 'not-a-uuid',
      () => '00000000-0000-0000-0000-000000000000',
      (name) => (name === 'orgId' ? other.orgId : crypto.randomUUID()),
      () => 'x'.repeat(300),
      () => '..%2F..',
    ];
    for (const route of routes) {
      for (const value of values) {
        const path = fill(route.path, value);
        for (const token of [undefined, tenant.token, 'garbage']) {
          await api(route.method, path, { token, query: hostileQuery });
          if (route.method !== 'GET') {
            await api(route.method, path, { token, rawBody: '{"name": ', contentType: 'application/json' });
            await api(route.method, path, { token, rawBody: '[1,2,3]', contentType: 'application/json' });
            await api(route.method, path, { token, rawBody: '\u0000\u00ff', contentType: 'application/octet-stream' });
            await api(route.method, path, { token, body: { name: 12, env: { deep: [null] }, applicationIds: 'x', userIds: [1] } });
          }
        }
      }
    }
    expect(routes.length).toBeGreaterThan(0);
  }, 300_000);

  it('never answers another organization with its data', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    for (const route of routes.filter((r) => r.method === 'GET' && r.path.includes('{orgId}'))) {
      const response = await api('GET', fill(route.path, (name) => (name === 'orgId' ? other.orgId : crypto.randomUUID())), { token: tenant.token });
      expect([400, 401, 404], `${route.operationId}: ${response.text}`).toContain(response.status);
    }
  }, 120_000);
});
