import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { createTenant } from './fixtures.ts';
import { completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { keys } from '../../shared/db/keys.ts';
import { queryAll } from '../../shared/db/query.ts';

// Findings across scans: identity (findingHash), first and last seen.

const uri = (path: string, param = 'id') => ({ uri: path, requestMethod: 'GET', param, evidence: `at ${path}`, otherInfo: '', requestHeader: '', requestBody: '', responseHeader: '', responseBody: '' });
const sqlInjection = (...paths: string[]) => ({ pluginId: '40018', name: 'SQL Injection', severity: 'High', description: 'SQLi', uris: paths.map((p) => uri(p)) });

async function hashesOf(token: string, scanId: string, pluginId: string): Promise<Record<string, string>> {
  const out = await api('GET', `/api/v1/scan/${scanId}/alert/${pluginId}`, { token, query: { pageSize: 100 } });
  expect(out.status).toBe(200);
  return Object.fromEntries(out.body.applicationScanAlertUris.map((u: { uri: string; findingHash: string }) => [u.uri, u.findingHash]));
}

describe('finding identity across scans', () => {
  it('gives literal URIs differing only in ids one hash, the same in later scans of the environment, another in another environment', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const first = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, first.scanId, [sqlInjection('/users/1', 'https://target.test/users/2?x=1', '/about')]);
    await completeScan(tenant.token, first.scanId);
    const second = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, second.scanId, [sqlInjection('/users/9b2f0c5e-1d2a-4c3b-8e4f-5a6b7c8d9e0f', '/contact')]);
    await completeScan(tenant.token, second.scanId);
    const other = await startScan(tenant.token, appId, { env: 'prod' });
    await reportAlerts(tenant.token, other.scanId, [sqlInjection('/users/1')]);
    await completeScan(tenant.token, other.scanId);

    const one = await hashesOf(tenant.token, first.scanId, '40018');
    const two = await hashesOf(tenant.token, second.scanId, '40018');
    const prod = await hashesOf(tenant.token, other.scanId, '40018');
    expect(one['/users/1']).toBe(one['https://target.test/users/2?x=1']);
    expect(one['/about']).not.toBe(one['/users/1']);
    expect(two['/users/9b2f0c5e-1d2a-4c3b-8e4f-5a6b7c8d9e0f']).toBe(one['/users/1']);
    expect(prod['/users/1']).not.toBe(one['/users/1']);

    // Each finding of the environment once, with its first and last scan and its URIs in the last one.
    const { pk, skPrefix } = keys.findingsOfEnvironment(appId, second.envId);
    const findings = await queryAll({ partition: pk, skPrefix });
    const byHash = Object.fromEntries(findings.map((f) => [f.findingHash, f]));
    expect(findings).toHaveLength(3);
    const scanStart = async (scanId: string) => Number((await api('GET', `/api/v1/scan/${scanId}/alerts`, { token: tenant.token })).body.applicationScanResults[0].scan.timestamp);
    const [t1, t2] = [await scanStart(first.scanId), await scanStart(second.scanId)];
    expect(byHash[one['/users/1']]).toMatchObject({ path: '/users/{id}', requestMethod: 'GET', param: 'id', pluginId: '40018', severity: 'High', firstSeen: t1, lastSeen: t2, lastScanId: second.scanId, lastScanUris: 1 });
    expect(byHash[one['/about']]).toMatchObject({ path: '/about', firstSeen: t1, lastSeen: t1, lastScanId: first.scanId, lastScanUris: 1 });
    expect(byHash[two['/contact']]).toMatchObject({ firstSeen: t2, lastSeen: t2 });
  });
});
