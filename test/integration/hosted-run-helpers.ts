import { expect } from 'vitest';
import { api } from './client.ts';
import type { Tenant } from './fixtures.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';

// A hosted scan ended with a coverage record through the agent's own calls (docs/HOSTED-SCANS.md, The run's end):
// startScan, a device's poll and acknowledgement, the run's scan announced, then endScanRun with the record.

export const sampleCoverage = {
  pages: 7,
  forms: 2,
  requests: 120,
  authenticatedRequests: 90,
  relogins: 1,
  modules: [{ name: 'sql', requests: 40, findings: 1, cutAtTimeLimit: false }],
  durationSeconds: 30,
  deadlineSeconds: 3600,
  verdict: 'AUTH_DEGRADED',
  reasons: ['25% of the requests went out without the session'],
};

export async function hostedScanWithCoverage(tenant: Tenant, coverage: unknown = sampleCoverage) {
  const post = (path: string, body: unknown, query?: Record<string, string>) =>
    api('POST', path, { token: tenant.token, body, ...(query ? { query } : {}) });
  await allowScanDomain(tenant.orgId, '127.0.0.1');
  const app = await post(`/api/v1/org/${tenant.orgId}/app`, {
    name: `cloud-${Date.now()}`,
    env: 'production',
    applicationType: 'CLOUD',
    cloudScanTargetURL: 'http://127.0.0.1:9/',
  });
  expect(app.status, app.text).toBe(200);
  const appId = app.body.applicationId as string;
  const started = await post(`/api/v1/app/${appId}/perch/start`, { command: { command: 'START' }, env: 'production' });
  expect(started.status, started.text).toBe(200);
  const device = await post(`/api/v1/org/${tenant.orgId}/perch/devices`, { name: 'agent-1', engines: ['wapiti'] });
  const deviceId = device.body.deviceId as string;
  const polled = await post(`/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}/poll`, { waitSeconds: 0 });
  const { scanKey, commandId } = polled.body.command as { scanKey: string; commandId: string };
  const acked = await post(`/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}/commands/${commandId}/ack`, {
    applicationId: appId,
  });
  expect(acked.status, acked.text).toBe(200);
  const announced = await post(
    `/api/v1/app/${appId}/perch/runs/${scanKey}/scan`,
    { env: 'production', config: 'app:\n  env: production\n', host: 'http://127.0.0.1:9/' },
    { deviceId },
  );
  expect(announced.status, announced.text).toBe(200);
  const ended = await post(
    `/api/v1/app/${appId}/perch/runs/${scanKey}/end`,
    { state: 'COMPLETED', log: 'the whole log\n', coverage },
    { deviceId },
  );
  expect(ended.status, ended.text).toBe(200);
  return { appId, scanId: announced.body.scanId as string };
}
