import { describe, expect, it } from 'vitest';
import publicSchemas from '../../scripts/reference/stackhawk-schemas.json' with { type: 'json' };
import { matchRoute } from '../../scripts/local/server.ts';
import { routes } from '../../shared/routes.ts';
import { type Route } from '../../shared/http/route.ts';
import { api, baseUrl, type RequestOptions } from './client.ts';
import { createTenant } from './fixtures.ts';
import { alert, completeScan, reportAlerts, startScan } from './scan-helpers.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { startAgent } from '../../scanner/src/agent/agent.ts';
import { startFormTarget } from '../../scanner/test/profile-targets.ts';

// Every enum value our answers carry is one the public schema allows (docs/COMPATIBILITY.md "Enum values"): a client
// generated strictly from the public OpenAPI description refuses any other. The schemas are the repository's copy of
// the public description's (scripts/reference/stackhawk-schemas.json). Each operation whose answer has an enum field
// is driven with data that fills such fields, and every enum value of its answer is checked against them.

interface Schema {
  $ref?: string;
  type?: string;
  enum?: string[];
  items?: Schema;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  writeOnly?: boolean;
}
const schemas = (publicSchemas as { schemas: Record<string, Schema> }).schemas;
const resolve = (schema: Schema): Schema => (schema.$ref ? schemas[schema.$ref.split('/').pop()!] : schema);

/** The public schema of an operation's JSON answer. */
const answerSchema = (route: Route): Schema =>
  route.responseField
    ? schemas[route.response].properties![route.responseField]
    : { $ref: `#/components/schemas/${route.response}` };

/** Whether an answer of this schema can hold an enum value. */
function hasEnum(schema: Schema, seen = new Set<string>()): boolean {
  if (schema.$ref) {
    if (seen.has(schema.$ref)) return false;
    seen.add(schema.$ref);
  }
  const s = resolve(schema);
  if (s.enum) return true;
  const children = [
    s.items,
    typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined,
    ...Object.values(s.properties ?? {}).filter((p) => !p.writeOnly),
  ];
  return children.some((child) => child && hasEnum(child, seen));
}

/** Every enum value of `value` against the public schema: how many were checked, and the ones not allowed. */
function checkEnums(schema: Schema, value: unknown, path: string, found: { checked: number; problems: string[] }) {
  const s = resolve(schema);
  if (value === undefined || value === null) return;
  if (s.enum) {
    found.checked++;
    if (typeof value !== 'string' || !s.enum.includes(value))
      found.problems.push(`${path}: ${JSON.stringify(value)} is not one of ${s.enum.join(', ')}`);
    return;
  }
  if (Array.isArray(value)) {
    if (s.items) value.forEach((item, i) => checkEnums(s.items!, item, `${path}[${i}]`, found));
    return;
  }
  if (typeof value !== 'object') return;
  for (const [key, item] of Object.entries(value)) {
    const property = s.properties?.[key];
    if (property) checkEnums(property, item, `${path}.${key}`, found);
    else if (typeof s.additionalProperties === 'object')
      checkEnums(s.additionalProperties, item, `${path}.${key}`, found);
  }
}

/** The operations whose answer has an enum field in the public schema: each must be checked at least once. */
const enumOperations = routes
  .filter((route) => !['empty', 'noContent', 'raw'].includes(route.response) && !route.response.startsWith('hawk.'))
  .filter((route) => hasEnum(answerSchema(route)))
  .map((route) => route.operationId);

/** Enum values checked per operation. */
const checkedBy = new Map<string, number>();

/** A request through the test client; a 2xx JSON answer has each of its enum values checked. */
async function call(method: string, path: string, options: RequestOptions = {}) {
  const out = await api(method, path, options);
  expect(out.status, `${method} ${path}: ${out.text}`).toBe(200);
  const route = matchRoute(method, new URL(path, baseUrl()).pathname)!;
  if (!schemas[route.response]) return out; // an answer of ours (hawk.*) or an empty one
  const found = { checked: 0, problems: [] as string[] };
  checkEnums(answerSchema(route), out.body, route.operationId, found);
  expect(found.problems, `${method} ${path}`).toEqual([]);
  checkedBy.set(route.operationId, (checkedBy.get(route.operationId) ?? 0) + found.checked);
  return out;
}

describe('enum values of every answer are the public schema’s', () => {
  it('knows which operations have enum fields in their answers', () => {
    expect(enumOperations).toEqual(
      expect.arrayContaining(['getStackHawkScanPolicy', 'allStackHawkScanPolicies', 'listRepositories']),
    );
    expect(enumOperations.length).toBeGreaterThan(30);
  });

  it('drives each of those operations with data that fills them', async () => {
    const tenant = await createTenant();
    const { orgId, token } = tenant;
    await call('GET', '/api/v1/user', { token });

    // Applications and environments
    const appId = (await call('POST', `/api/v1/org/${orgId}/app`, { token, body: { name: 'enums', env: 'dev' } })).body
      .applicationId;
    const bare = await call('POST', `/api/v1/org/${orgId}/app`, { token, body: { name: 'no environment yet' } });
    expect(bare.body.applicationStatus).toBe('ENV_INCOMPLETE');
    await call('GET', `/api/v1/app/${appId}`, { token });
    await call('POST', `/api/v1/app/${appId}`, { token, body: { name: 'enums app' } });
    const prod = await call('POST', `/api/v1/app/${appId}/env`, {
      token,
      body: { env: 'prod' },
      query: { host: 'https://prod.example.test' },
    });
    const prodId = prod.body.envId as string;
    await call('POST', `/api/v1/app/${appId}/env/${prodId}`, { token, body: { name: 'production' } });
    const defaultConfig = `/api/v1/app/${appId}/env/${prodId}/config/default`;
    await call('POST', defaultConfig, {
      token,
      body: {
        conf: {
          app: {
            applicationId: appId,
            env: 'production',
            host: 'https://prod.example.test',
            authentication: {
              testPath: { path: '/me', success: '.*', type: 'BODY', requestMethod: 'POST' },
              tokenAuthorization: { type: 'HEADER', value: 'Authorization' },
            },
          },
          hawk: { spider: { ajax: true, ajaxBrowser: 'FIREFOX_HEADLESS' } },
        },
      },
    });
    await call('GET', defaultConfig, { token });

    // Scans, findings and triage
    const scan = await startScan(token, appId);
    await reportAlerts(token, scan.scanId, [alert('40018', 'High', 2), alert('10038', 'Medium', 1)]);
    await completeScan(token, scan.scanId); // through `api`: checked again below with reportScanCompleted
    const second = await startScan(token, appId);
    await reportAlerts(token, second.scanId, [alert('40018', 'High', 1)]);
    await call('POST', `/api/v1/scan/${second.scanId}/complete`, { token, body: { status: 'COMPLETED', urlCount: 3 } });
    await call('GET', `/api/v1/scan/${orgId}`, { token });
    await call('GET', `/api/v1/scan/${scan.scanId}/alerts`, { token });
    const findings = await call('GET', `/api/v1/scan/${scan.scanId}/alert/40018`, { token });
    const [first] = findings.body.applicationScanAlertUris as { findingHash: string }[];
    await call('POST', `/api/v1/org/${orgId}/app/${appId}/env/${scan.envId}/findings/triage`, {
      token,
      body: { actions: [{ findingHash: first.findingHash, status: 'FALSE_POSITIVE', note: 'not ours' }] },
    });
    await call('POST', `/api/v1/app/${appId}/alerts/rules/${crypto.randomUUID()}`, {
      token,
      body: {
        alertRuleWrapper: {
          alertRule: [
            {
              alertCondition: { environmentId: scan.envId, pluginId: '40018', requestMethod: 'get' },
              parameterizedPath: '/path/1',
              result: 'RISK_ACCEPTED',
              note: 'accepted',
            },
          ],
        },
      },
    });
    await call('GET', `/api/v1/scan/${scan.scanId}/alert/40018`, { token }); // now with rule histories
    await call('GET', `/api/v1/reports/org/${orgId}/findings`, { token });
    await call('GET', `/api/v1/app/${appId}/config/${scan.configHash}`, { token });

    // Lists of applications, environments, members and activity
    await call('GET', `/api/v2/org/${orgId}/envs`, { token });
    await call('GET', `/api/v2/org/${orgId}/apps`, { token });
    await call('GET', `/api/v1/app/${orgId}/list`, { token });
    await call('GET', `/api/v1/app/${appId}/env/list`, { token });
    await call('GET', `/api/v1/org/${orgId}/members`, { token });
    await call('GET', `/api/v1/org/${orgId}/audit`, { token });

    // Scan policies: the built-in ones, the organization's, the application's
    const all = await call('GET', '/api/v1/policy/all', { token });
    const statuses = new Set(
      all.body.scanPolicies.flatMap((p: { plugins: { status?: string }[] }) => p.plugins.map((x) => x.status)),
    );
    expect([...statuses].sort()).toEqual(['ADDON_STATUS_ALPHA', 'ADDON_STATUS_BETA', 'ADDON_STATUS_RELEASE']);
    await call('GET', '/api/v1/policy', { token, query: { policyName: 'API' } });
    await call('POST', `/api/v1/policy/${orgId}/update`, {
      token,
      body: { scanPolicy: { name: 'ENUMS', displayName: 'Enums', plugins: [{ pluginId: '40018', enabled: true }] } },
    });
    await call('POST', `/api/v1/policy/${orgId}/update`, {
      token,
      body: { scanPolicy: { name: 'MORE', plugins: [] } },
    });
    const policies = await call('GET', `/api/v1/policy/${orgId}/list`, {
      token,
      query: { pageSize: 1, sortField: 'displayName', sortDir: 'desc' },
    });
    expect(policies.body.nextPage).toMatchObject({
      number: 1,
      size: 1,
      sortOptions: { field: 'displayName', direction: 'DESC' },
    });
    await call('GET', `/api/v1/app/${appId}/policy`, { token });
    await call('PUT', `/api/v1/app/${appId}/policy/assign`, { token, query: { policyName: 'API' } });
    await call('GET', `/api/v1/app/${appId}/policy/plugins/40018/disabled`, { token });
    await call('PUT', `/api/v1/app/${appId}/policy/flags`, { token, body: { techFlags: { 'OS.Windows': false } } });

    // Repositories: one mapped to an application, one not
    const repo = (name: string) =>
      call('PUT', `/api/v1/org/${orgId}/repos`, { token, body: { name, repoSource: 'GITHUB' } });
    const mapped = (await repo('acme/mapped')).body.stackHawkRepoId as string;
    const unmapped = await repo('acme/unmapped');
    expect(unmapped.body).toMatchObject({ status: 'NOT_COVERED', appInfos: [] });
    expect(unmapped.body).not.toHaveProperty('stackHawkApplicationStatus');
    await call('POST', `/api/v1/org/${orgId}/repo/${mapped}/applications`, {
      token,
      body: { orgId, repoId: mapped, appInfos: [{ id: appId, name: 'enums app' }] },
    });
    await call('PUT', `/api/v1/org/${orgId}/repos/apps`, {
      token,
      body: {
        orgId,
        newRepositoryApps: [{ repoId: unmapped.body.stackHawkRepoId, appInfos: [{ name: 'from repo' }] }],
      },
    });
    await repo('acme/alone');
    const repos = await call('GET', `/api/v1/org/${orgId}/repos`, { token });
    expect(
      Object.fromEntries(
        repos.body.repositories.map((r: { name: string; status: string; stackHawkApplicationStatus?: string }) => [
          r.name,
          [r.status, r.stackHawkApplicationStatus],
        ]),
      ),
    ).toEqual({
      'acme/alone': ['NOT_COVERED', undefined],
      'acme/mapped': ['COVERED', 'ACTIVE'],
      'acme/unmapped': ['COVERED', 'ENV_INCOMPLETE'],
    });
    await call('GET', `/api/v1/org/${orgId}/repo/${mapped}/sensitive/list`, { token });

    // Hosted scans (Perch): a run queued, carried by an agent, ended in ERROR with its type; another stopped
    await allowScanDomain(orgId, '127.0.0.1');
    const cloud = await call('POST', `/api/v1/org/${orgId}/app`, {
      token,
      body: { name: 'hosted', env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: 'http://127.0.0.1:9/' },
    });
    const cloudId = cloud.body.applicationId as string;
    const start = () =>
      call('POST', `/api/v1/app/${cloudId}/perch/start`, {
        token,
        body: { command: { command: 'START' }, env: 'production' },
      });
    await start();
    await call('GET', `/api/v1/app/${cloudId}/perch/status`, { token });
    const device = (await call('POST', `/api/v1/org/${orgId}/perch/devices`, { token, body: { name: 'enums agent' } }))
      .body.deviceId as string;
    const polled = await call('POST', `/api/v1/org/${orgId}/perch/devices/${device}/poll`, {
      token,
      body: { waitSeconds: 0 },
    });
    const { commandId, scanKey } = polled.body.command as { commandId: string; scanKey: string };
    await call('POST', `/api/v1/org/${orgId}/perch/devices/${device}/commands/${commandId}/ack`, {
      token,
      body: { applicationId: cloudId },
    });
    await call('POST', `/api/v1/app/${cloudId}/perch/runs/${scanKey}`, {
      token,
      body: { deviceId: device, phase: 'attack' },
    });
    // The run's end in one call (endScanRun): its answer is the device, as updateScanRun's.
    await call('POST', `/api/v1/app/${cloudId}/perch/runs/${scanKey}/end`, {
      token,
      query: { deviceId: device },
      body: { state: 'ERROR', error: { errorType: 'AUTHENTICATION', message: 'testPath failed' }, log: 'failed\n' },
    });
    await call('GET', `/api/v1/app/${cloudId}/perch/status`, { token });
    await call('POST', `/api/v1/org/${orgId}/perch/status`, {
      token,
      body: { page: { filters: [{ name: 'queryAppIds', value: cloudId }] } },
    });
    await start();
    await call('POST', `/api/v1/app/${cloudId}/perch/stop`, { token, body: { command: { command: 'STOP' } } });

    // Profile scans: one carried out by a real agent against a loopback site with a login form, read four ways
    const site = await startFormTarget();
    try {
      const profiled = (
        await call('POST', `/api/v1/org/${orgId}/app`, {
          token,
          body: { name: 'profiled', env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: site.url },
        })
      ).body.applicationId as string;
      await call('POST', `/api/v1/app/${profiled}/perch/profile-scan`, { token });
      const agent = await startAgent({
        url: baseUrl(),
        token: async () => token,
        orgId,
        engines: [],
        once: true,
        maxIdleMs: 20_000,
      });
      await agent.done;
      const results = await call('GET', `/api/v1/app/${profiled}/profile/results/list`, { token });
      const [{ scanId }] = results.body.profileScanResults as { scanId: string }[];
      await call('GET', `/api/v1/app/${profiled}/profile/results`, { token });
      await call('GET', `/api/v1/app/${profiled}/profile/results/${scanId}`, { token });
      await call('POST', `/api/v1/org/${orgId}/profile/results`, { token, body: { applicationIds: [profiled] } });
    } finally {
      await site.close();
    }

    // Scan configuration validation: markers with their severity
    await call('POST', `/api/v1/configuration/${orgId}/validate`, {
      token,
      body: { conf: 'app:\n  applicationId: nope\n  host: ftp://nowhere\n  bogus: 1\n', name: 'broken' },
    });
  });

  it('checked enum values in the answer of every such operation', () => {
    const unchecked = enumOperations.filter((operationId) => !checkedBy.get(operationId));
    expect(unchecked).toEqual([]);
  });
});
