import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { completeScan, pluginAlert, reportAlerts, startScan } from './scan-helpers.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { getEnvironment } from '../../shared/applications/environment-repository.ts';
import { getFinding } from '../../shared/results/finding-repository.ts';
import { environmentTrendTotal } from '../../shared/trends/writes.ts';

// A retest that verifies a fix fixes the finding in its stream (docs/HOSTED-SCANS.md, Retests; docs/DATA-MODEL.md,
// Tool streams), atomically with its outcome: it leaves the untriaged figures of the environment (the union of its
// streams' latest scans) and the open trends, counts as fixed, and a later scan of its stream that reports it again
// reopens it. The agent's side is driven over HTTP as an agent would (register, poll, acknowledge, end).

const TARGET = 'http://127.0.0.1:9';

async function cloudApp(tenant: Tenant) {
  await allowScanDomain(tenant.orgId, '127.0.0.1');
  const out = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
    token: tenant.token,
    body: { name: `retest-${Date.now()}`, env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: TARGET },
  });
  expect(out.status, out.text).toBe(200);
  return out.body.applicationId as string;
}

/** A scan of the HawkScan stream of `production` reporting these alerts, completed. */
async function scan(tenant: Tenant, appId: string, alerts: unknown[]) {
  const config = `app:\n  applicationId: ${appId}\n  env: production\n  host: ${TARGET}\n`;
  const started = await startScan(tenant.token, appId, { env: 'production', host: TARGET, config });
  await reportAlerts(tenant.token, started.scanId, alerts);
  await completeScan(tenant.token, started.scanId);
  return started;
}

/** The environment's untriaged figures (the union of its streams' latest scans, as its lists and health read them). */
async function untriaged(appId: string, envId: string) {
  const env = (await getEnvironment(appId, envId))!;
  return { High: env.lastScanHighUntriaged, Medium: env.lastScanMediumUntriaged, Low: env.lastScanLowUntriaged };
}

/** The findings report's issue count and each row's tools (docs/ISSUES.md, The findings report). */
async function reportIssues(tenant: Tenant) {
  const out = await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, { token: tenant.token });
  expect(out.status, out.text).toBe(200);
  const rows = out.body.findings as { findingHash: string; detectedBy: string[] }[];
  return { totalIssues: out.body.totalIssues as number, tools: rows.map((r) => r.detectedBy.join(' ')) };
}

/** The report's issue count on a page past its rows (pageSize 1000: no environment has rows on page 1). */
async function totalIssuesOffPage(tenant: Tenant) {
  const out = await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, {
    token: tenant.token,
    query: { pageSize: 1000, pageToken: 1 },
  });
  expect(out.status, out.text).toBe(200);
  expect(out.body.findings).toEqual([]);
  return out.body.totalIssues as number;
}

async function hashOf(tenant: Tenant, scanId: string, pluginId: string) {
  const out = await api('GET', `/api/v1/scan/${scanId}/alert/${pluginId}`, { token: tenant.token });
  expect(out.status, out.text).toBe(200);
  return out.body.applicationScanAlertUris[0].findingHash as string;
}

/** Queues a retest of the finding and carries it out as an agent whose engine found nothing (`found`: it did). */
async function retest(tenant: Tenant, appId: string, hash: string, found: unknown[] = []) {
  const queued = await api('POST', `/api/v1/app/${appId}/findings/${hash}/retest`, {
    token: tenant.token,
    query: { env: 'production' },
  });
  expect(queued.status, queued.text).toBe(200);
  const device = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, {
    token: tenant.token,
    body: { name: `agent-${Date.now()}`, engines: ['wapiti'] },
  });
  expect(device.status, device.text).toBe(200);
  const deviceId = device.body.deviceId as string;
  const polled = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}/poll`, {
    token: tenant.token,
    body: { waitSeconds: 0 },
  });
  expect(polled.body.command, polled.text).toMatchObject({ command: 'RETEST_START', scanKey: queued.body.retestId });
  const ack = await api(
    'POST',
    `/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}/commands/${polled.body.command.commandId}/ack`,
    { token: tenant.token, body: { applicationId: appId } },
  );
  expect(ack.status, ack.text).toBe(200);
  const ended = await api('POST', `/api/v1/app/${appId}/perch/runs/${queued.body.retestId}/end`, {
    token: tenant.token,
    query: { deviceId },
    body: { state: 'COMPLETED', log: 'retest\n', retest: { found } },
  });
  expect(ended.status, ended.text).toBe(200);
  const read = await api('GET', `/api/v1/app/${appId}/retests/${queued.body.retestId}`, { token: tenant.token });
  expect(read.status, read.text).toBe(200);
  return read.body as { status: string; evidence: string };
}

describe('a retest that verifies a fix (docs/HOSTED-SCANS.md, Retests)', { timeout: 180_000 }, () => {
  it('fixes the finding in its stream with its outcome, and a later scan of the stream that reports it reopens it', async () => {
    const tenant = await createTenant();
    const appId = await cloudApp(tenant);
    const alerts = [pluginAlert('40018', 'High', ['/products']), pluginAlert('10020', 'Medium', ['/headers'])];
    const first = await scan(tenant, appId, alerts);
    const env = { organizationId: tenant.orgId, applicationId: appId, environmentId: first.envId };
    expect(await untriaged(appId, first.envId)).toEqual({ High: 1, Medium: 1, Low: 0 });
    const sql = await hashOf(tenant, first.scanId, '40018');
    const headers = await hashOf(tenant, first.scanId, '10020');
    expect(await reportIssues(tenant)).toEqual({ totalIssues: 2, tools: ['hawkscan', 'hawkscan'] });
    const trendBefore = await environmentTrendTotal(env);
    expect(trendBefore).toMatchObject({ openHigh: 1, openMedium: 1 });

    // STILL_PRESENT keeps it open and counted.
    const still = await retest(tenant, appId, headers, [
      { pluginId: '10020', method: 'GET', uri: `${TARGET}/headers`, param: 'id', evidence: 'seen again' },
    ]);
    expect(still).toMatchObject({ status: 'STILL_PRESENT', evidence: 'seen again' });
    expect((await getFinding(env, headers))!.fixedAt).toBeUndefined();

    // FIXED: fixed and verified in one transaction with the outcome, out of the union's untriaged figures.
    expect(await retest(tenant, appId, sql)).toMatchObject({ status: 'FIXED' });
    const fixed = (await getFinding(env, sql))!;
    expect(fixed.fixedAt).toEqual(expect.any(Number));
    expect(fixed.verifiedFixedAt).toBe(fixed.fixedAt);
    expect(fixed.lastRetest).toMatchObject({ status: 'FIXED' });
    expect(await untriaged(appId, first.envId)).toEqual({ High: 0, Medium: 1, Low: 0 });
    const trendFixed = await environmentTrendTotal(env);
    expect(trendFixed).toMatchObject({ openHigh: 0, openMedium: 1, fixedHigh: 1 });
    expect(trendFixed.fixedMedium ?? 0).toBe(0);
    // The report's issues: one left open (the fix marked the environment's summary stale: its findings are read).
    expect(await reportIssues(tenant)).toEqual({ totalIssues: 1, tools: ['hawkscan', 'hawkscan'] });
    // A page past the rows (the environment off it) counts from the environment's record, which the fix moved.
    expect(await totalIssuesOffPage(tenant)).toBe(1);

    // A triage of the fixed finding moves no figure: it is out of them already.
    const triaged = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${first.envId}/findings/triage`, {
      token: tenant.token,
      body: { actions: [{ findingHash: sql, status: 'ADD_COMMENT', note: 'checked' }] },
    });
    expect(triaged.status, triaged.text).toBe(200);
    expect(await untriaged(appId, first.envId)).toEqual({ High: 0, Medium: 1, Low: 0 });

    // A retest of a finding already fixed verifies it again without counting a second fix.
    expect(await retest(tenant, appId, sql)).toMatchObject({ status: 'FIXED' });
    expect(await environmentTrendTotal(env)).toMatchObject({ openHigh: 0, fixedHigh: 1 });
    expect((await getFinding(env, sql))!.fixedAt).toBe(fixed.fixedAt);

    // A later scan of the stream that reports it again reopens it: current, unverified, counted again.
    await scan(tenant, appId, alerts);
    const reopened = (await getFinding(env, sql))!;
    expect([reopened.fixedAt, reopened.verifiedFixedAt]).toEqual([undefined, undefined]);
    expect(await untriaged(appId, first.envId)).toEqual({ High: 1, Medium: 1, Low: 0 });
    expect(await environmentTrendTotal(env)).toMatchObject({ openHigh: 1, fixedHigh: 1, reopenedHigh: 1 });
    expect(await reportIssues(tenant)).toEqual({ totalIssues: 2, tools: ['hawkscan', 'hawkscan'] });
    expect(await totalIssuesOffPage(tenant)).toBe(2);
  });
});
