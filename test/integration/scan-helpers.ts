import { expect } from 'vitest';
import { api } from './client.ts';
import type { Tenant } from './fixtures.ts';

// Helpers of the scan tests: the scanner's reports and a synthetic alert batch.

export const SCAN_CONFIG =
  'app:\n  applicationId: x\n  env: dev\n  host: https://target.test\nhawk:\n  spider:\n    base: true\n';

export async function createApp(
  tenant: Pick<Tenant, 'orgId' | 'token'>,
  body: Record<string, unknown> = { name: 'scanned', env: 'dev' },
): Promise<string> {
  const out = await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body });
  expect(out.status).toBe(200);
  return out.body.applicationId;
}

export async function startScan(token: string, appId: string, body: Record<string, unknown> = {}) {
  const out = await api('POST', `/api/v1/app/${appId}/scan`, {
    token,
    body: { env: 'dev', config: SCAN_CONFIG, hawkscanVersion: '4.1.0', host: 'https://target.test', tags: [], ...body },
  });
  expect(out.status, out.text).toBe(200);
  return out.body as { scanId: string; configHash: string; envId: string };
}

/**
 * `count` URIs of one plugin, each with a message. Plugins of one CWE at the same place are one issue
 * (docs/ISSUES.md): give another `cweId` to keep a second plugin's triage apart.
 */
export function alert(pluginId: string, severity: 'High' | 'Medium' | 'Low', count: number, from = 0, cweId = '79') {
  return {
    pluginId,
    name: `Plugin ${pluginId}`,
    severity,
    description: `About ${pluginId}`,
    cweId,
    references: ['https://owasp.org/x'],
    uris: Array.from({ length: count }, (_, i) => ({
      uri: `/path/${from + i}`,
      requestMethod: 'get',
      param: 'q',
      evidence: `evidence ${from + i}`,
      otherInfo: 'other',
      requestHeader: `GET https://target.test/path/${from + i} HTTP/1.1\r\nHost: target.test\r\nCookie: a=1; b=2\r\n`,
      requestBody: '',
      responseHeader: 'HTTP/1.1 200 OK\r\n',
      responseBody: `<html>${from + i}</html>`,
    })),
  };
}

export async function reportAlerts(token: string, scanId: string, alerts: unknown[]) {
  const out = await api('POST', `/api/v1/scan/${scanId}/alerts`, { token, body: { alerts } });
  expect(out.status, out.text).toBe(200);
  return out.body;
}

export async function completeScan(
  token: string,
  scanId: string,
  status: 'COMPLETED' | 'ERROR' = 'COMPLETED',
  urlCount = 12,
) {
  const out = await api('POST', `/api/v1/scan/${scanId}/complete`, { token, body: { status, urlCount } });
  expect(out.status, out.text).toBe(200);
  return out.body;
}

/** Starts a scan of environment `env`, reports `alerts` and completes it. */
export async function scanOnce(token: string, appId: string, alerts: unknown[], env = 'dev') {
  const started = await startScan(token, appId, { env });
  await reportAlerts(token, started.scanId, alerts);
  await completeScan(token, started.scanId);
  return started;
}

/** A finding's URI with empty evidence and messages. */
export const bareUri = (path: string) => ({
  uri: path,
  requestMethod: 'GET',
  param: 'id',
  evidence: '',
  otherInfo: '',
  requestHeader: '',
  requestBody: '',
  responseHeader: '',
  responseBody: '',
});

/** One plugin's alert with a bare URI per path. */
export const pluginAlert = (pluginId: string, severity: string, paths: string[]) => ({
  pluginId,
  name: `Plugin ${pluginId}`,
  severity,
  description: `About ${pluginId}`,
  cweId: '89',
  uris: paths.map(bareUri),
});
