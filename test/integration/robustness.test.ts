import { describe, expect, it } from 'vitest';
import { routes } from '../../shared/routes.ts';
import { pathParameterNames, type Route } from '../../shared/http/route.ts';
import { api, type RequestOptions } from './client.ts';
import { createTenant } from './fixtures.ts';
import { SCAN_CONFIG, alert, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { newTeam } from './team-helpers.ts';
import { auditEntriesOf } from './hosted-assets-helpers.ts';
import { FINDINGS_REPORT_LIMITS } from '../../shared/limits.ts';

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
            await api(route.method, path, {
              token,
              body: { name: 12, env: { deep: [null] }, applicationIds: 'x', userIds: [1] },
            });
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
      const response = await api(
        'GET',
        fill(route.path, (name) => (name === 'orgId' ? other.orgId : crypto.randomUUID())),
        { token: tenant.token },
      );
      expect([400, 401, 404], `${route.operationId}: ${response.text}`).toContain(response.status);
    }
  }, 120_000);
});

// The hostile-input suite (docs/COMPATIBILITY.md, Limits): the route table drives it. Every operation is called with
// real ids of the caller's own organization (so requests reach the domain code) and one class of hostile input at a
// time; each must answer a 4xx (a read may answer 200 where the input is merely odd), never a 5xx (api() fails on
// those), within a ceiling that only a stall would break, and change nothing (the organization's audit log, which every
// mutation writes in its transaction, stays as it was).
describe('hostile input on every route', () => {
  const STALL_MS = 20_000;
  const stars = `${'*'.repeat(200)}Q`;
  const deepYaml = '['.repeat(200_000);
  const laughs = [
    'a: &a [x, x, x, x, x, x, x, x, x, x]',
    ...'bcdefg'.split('').map((n, i) => `${n}: &${n} [${Array(10).fill(`*${'abcdef'[i]}`).join(', ')}]`),
  ].join('\n');

  async function fixtures() {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const { scanId, envId, configHash } = await startScan(tenant.token, appId, {
      tags: [{ name: 'branch', value: 'main' }],
    });
    await reportAlerts(tenant.token, scanId, [alert('10038', 'Low', 1)]);
    const team = await newTeam(tenant.orgId, tenant.token, { name: 'hostile', userIds: [tenant.userId] });
    const ids: Record<string, string> = {
      orgId: tenant.orgId,
      appId,
      envId,
      scanId,
      teamId: team.id,
      userId: tenant.userId,
      oasId: appId,
      pluginId: '10038',
      configHash,
      configName: 'default',
      policyName: 'DEFAULT',
      toggle: 'enabled',
      repoId: crypto.randomUUID(),
      alertUriId: crypto.randomUUID(),
      messageId: crypto.randomUUID(),
      integrationId: crypto.randomUUID(), // upsertAlertRule: no tracker connection of that id, so the status only
      webhookId: crypto.randomUUID(),
      trackerId: crypto.randomUUID(),
      // Hosted scans' agent operations: a device, a command and a run that do not exist.
      deviceId: crypto.randomUUID(),
      commandId: crypto.randomUUID(),
      scanKey: crypto.randomUUID(),
    };
    return { tenant, ids };
  }

  const pathOf = (route: Route, ids: Record<string, string>, override: Record<string, string> = {}) =>
    pathParameterNames(route.path).reduce(
      (path, name) => path.replace(`{${name}}`, override[name] ?? encodeURIComponent(ids[name])),
      route.path,
    );

  /** The hostile inputs a route takes: [what, request options, answers allowed]. */
  function hostileInputs(route: Route, ids: Record<string, string>): [string, RequestOptions, number[]][] {
    const inputs: [string, RequestOptions, number[]][] = [];
    const reads = route.method === 'GET';
    if (route.query && reads) {
      // A read ignores parameters it does not take; one it takes must refuse the value (or, for odd but valid
      // values, answer normally).
      const takes = (name: string) => name in route.query!.shape;
      const refused = (name: string) => (takes(name) ? [400] : [200, 404]);
      const odd = [200, 400, 404];
      inputs.push([
        'pathological patterns',
        {
          query: {
            search: stars,
            tag: `branch:${stars.slice(0, 200)}`,
            query: stars.slice(0, 200),
            name: stars.slice(0, 60),
            email: stars.slice(0, 60),
          },
        },
        odd,
      ]);
      inputs.push(['page token beyond int32', { query: { pageToken: 2 ** 31 } }, refused('pageToken')]);
      inputs.push(['huge page size', { query: { pageSize: 10 ** 12 } }, refused('pageSize')]);
      inputs.push(['times out of range', { query: { start: '99999999999999999999', end: '-1' } }, refused('start')]);
      inputs.push(['start after end', { query: { start: 2000, end: 1000 } }, refused('start')]);
      inputs.push([
        'duplicated ids',
        {
          query: {
            appIds: Array(50).fill(ids.appId),
            teamIds: Array(50).fill(ids.teamId),
            envIds: Array(50).fill(ids.envId),
          },
        },
        [200, 404],
      ]);
      inputs.push([
        'control characters',
        { query: { query: '\u202e\u0000', envs: '\u0000', search: '\u202egnp' } },
        odd,
      ]);
    }
    if (route.body) {
      const control = {
        name: '\u202egnp.exe',
        env: 'dev\u0000',
        applicationIds: [ids.appId, ids.appId],
        userIds: [ids.userId, ids.userId],
        tags: [{ name: '\u0007', value: '' }],
      };
      // A read that takes its filters in a POST body (searchDevices, bulkGetLatestProfileScanResults) ignores fields
      // it does not take, and answers each application once however often it is named.
      const bodyRead = ['searchDevices', 'bulkGetLatestProfileScanResults'].includes(route.operationId);
      inputs.push(['control characters and duplicated ids', { body: control }, bodyRead ? [200] : [400, 404, 409]]);
      inputs.push([
        'deep JSON',
        { rawBody: `{"name":${'['.repeat(50_000)}${']'.repeat(50_000)}}`, contentType: 'application/json' },
        [400],
      ]);
      const limit = route.maxBodyBytes ?? 1024 * 1024;
      inputs.push([
        'a body over the limit',
        { rawBody: JSON.stringify({ name: 'x'.repeat(limit) }), contentType: 'application/json' },
        [413],
      ]);
    }
    if (route.operationId === 'reportScanStarted') {
      inputs.push(['deep YAML config', { body: { env: 'dev', config: deepYaml } }, [400]]);
      inputs.push(['aliased YAML config', { body: { env: 'dev', config: laughs } }, [400]]);
      inputs.push(['duplicate-keyed YAML config', { body: { env: 'dev', config: `${SCAN_CONFIG}app: {}\n` } }, [400]]);
    }
    if (route.operationId === 'useDiscoveredOpenApiSpec')
      inputs.push(['a scan id that names no profile result', {}, [404]]);
    if (route.operationId === 'reportScanAlerts') {
      const many = Array.from({ length: FINDINGS_REPORT_LIMITS.maxAlerts + 1 }, (_, i) => alert(`p${i}`, 'Low', 1));
      inputs.push(['too many alerts', { body: { alerts: many } }, [400]]);
    }
    if (route.operationId === 'importScanReport') {
      const env = { env: 'hostile' };
      const lol = `<!DOCTYPE r [<!ENTITY a "${'a'.repeat(1000)}">${Array.from({ length: 8 }, (_, i) => `<!ENTITY ${'b'.repeat(i + 1)} "${`&${i ? 'b'.repeat(i) : 'a'};`.repeat(10)}">`).join('')}]>`;
      inputs.push([
        'billion-laughs XML report',
        {
          rawBody: `${lol}<OWASPZAPReport><site name="&bbbbbbbb;"/></OWASPZAPReport>`,
          contentType: 'application/xml',
          query: env,
        },
        [400],
      ]);
      inputs.push([
        'deep XML report',
        {
          rawBody: `<OWASPZAPReport>${'<a>'.repeat(50_000)}${'</a>'.repeat(50_000)}</OWASPZAPReport>`,
          contentType: 'application/xml',
          query: env,
        },
        [400],
      ]);
      inputs.push([
        'deep JSON report',
        { rawBody: `{"site":${'['.repeat(50_000)}${']'.repeat(50_000)}}`, contentType: 'application/json', query: env },
        [400],
      ]);
      inputs.push([
        'a report over the limit',
        { rawBody: 'x'.repeat(route.rawBody!.maxBytes + 1), contentType: 'text/plain', query: env },
        [413],
      ]);
    } else if (route.operationId === 'uploadScanRunLog') {
      inputs.push([
        'a log over the limit',
        { rawBody: 'x'.repeat(route.rawBody!.maxBytes + 1), contentType: 'text/plain' },
        [413],
      ]);
    } else if (route.rawBody) {
      inputs.push([
        'deep YAML description',
        { rawBody: `openapi: 3.0.3\nx: ${deepYaml}`, contentType: 'application/yaml' },
        [400],
      ]);
      inputs.push([
        'aliased YAML description',
        {
          rawBody: `openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n${laughs}`,
          contentType: 'application/yaml',
        },
        [400],
      ]);
      inputs.push([
        'a description over the limit',
        { rawBody: 'x'.repeat(route.rawBody.maxBytes + 1), contentType: 'application/yaml' },
        [413],
      ]);
    }
    return inputs;
  }

  it('answers a malformed percent-escape in any path parameter with a 400 naming it', async () => {
    const { tenant, ids } = await fixtures();
    const before = (await auditEntriesOf(tenant.orgId)).length;
    let positions = 0;
    for (const route of routes) {
      for (const name of pathParameterNames(route.path)) {
        const out = await api(route.method, pathOf(route, ids, { [name]: '%ZZ' }), { token: tenant.token });
        expect([out.status, out.body.message], `${route.operationId} {${name}}`).toEqual([
          400,
          `${name}: malformed percent-escape in the path`,
        ]);
        positions++;
      }
    }
    expect(positions).toBeGreaterThanOrEqual(40);
    expect((await auditEntriesOf(tenant.orgId)).length).toBe(before);
  }, 300_000);

  it('answers every class of hostile input with a 4xx (200 for odd reads), never a 5xx, and changes nothing', async () => {
    const { tenant, ids } = await fixtures();
    const before = (await auditEntriesOf(tenant.orgId)).length;
    let slowest = 0;
    let cases = 0;
    for (const route of routes.filter((r) => r.auth === 'bearer')) {
      for (const [what, options, allowed] of hostileInputs(route, ids)) {
        const started = Date.now();
        const out = await api(route.method, pathOf(route, ids), { token: tenant.token, ...options });
        slowest = Math.max(slowest, Date.now() - started);
        expect(allowed, `${route.operationId} with ${what}: ${out.status} ${out.text.slice(0, 300)}`).toContain(
          out.status,
        );
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(60);
    expect(slowest).toBeLessThan(STALL_MS);
    expect((await auditEntriesOf(tenant.orgId)).length).toBe(before);
    const scan = await api('GET', `/api/v1/scan/${ids.scanId}/alerts`, { token: tenant.token });
    expect(scan.body.applicationScanResults[0].alertStats.totalAlerts).toBe(1);
  }, 600_000);
});
