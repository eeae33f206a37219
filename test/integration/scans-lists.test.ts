import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { api } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { auditTypes, joinTeams } from './app-helpers.ts';
import { alert, completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { queryAll } from '../../shared/db/query.ts';
import { keys } from '../../shared/db/keys.ts';
import { getScanLocation } from '../../shared/results/scan-repository.ts';
import { s3 } from '../../shared/storage/s3.ts';
import { config } from '../../shared/config.ts';
import { objectKeys } from '../../shared/storage/objects.ts';

const envView = async (tenant: Tenant, query: Record<string, string | number | boolean> = {}) => {
  const out = await api('GET', `/api/v2/org/${tenant.orgId}/envs`, {
    token: tenant.token,
    query: { pageSize: 100, ...query },
  });
  expect(out.status, out.text).toBe(200);
  return out.body;
};
const envNames = async (tenant: Tenant, query: Record<string, string | number | boolean> = {}) =>
  (await envView(tenant, query)).environments.map((e: { environmentName: string }) => e.environmentName);

describe('environments carry their last scan (docs/API.md, Environments) and the V2 list filters and sorts by it', () => {
  it('fills the last-scan fields on start and completion, and lists, filters and sorts by them', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'shop', env: 'never' });
    // slow: 1 high, errored; busy: 3 findings (2 medium), completed; running: in progress.
    const slow = await startScan(tenant.token, appId, { env: 'slow', hawkscanVersion: '3.0.0' });
    await reportAlerts(tenant.token, slow.scanId, [alert('1', 'High', 1)]);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a duration of at least one second
    await completeScan(tenant.token, slow.scanId, 'ERROR');
    const busy = await startScan(tenant.token, appId, { env: 'busy' });
    await reportAlerts(tenant.token, busy.scanId, [alert('2', 'Medium', 2), alert('3', 'Low', 1)]);
    await completeScan(tenant.token, busy.scanId);
    const running = await startScan(tenant.token, appId, { env: 'running' });

    const views = (await envView(tenant)).environments;
    const byName = Object.fromEntries(views.map((v: { environmentName: string }) => [v.environmentName, v]));
    expect(byName.never).toMatchObject({
      lastScanId: '',
      lastScanStatus: 'UNKNOWN',
      lastScanTimestamp: '0',
      lastScanTotalUntriaged: 0,
    });
    expect(byName.slow).toMatchObject({
      lastScanId: slow.scanId,
      lastScanStatus: 'ERROR',
      lastScanHighUntriaged: 1,
      lastScanTotalUntriaged: 1,
      lastScanHawkscanVersion: '3.0.0',
      latestScanConfigHash: slow.configHash,
    });
    expect(Number(byName.slow.lastScanDuration)).toBeGreaterThanOrEqual(1);
    expect(Number(byName.slow.lastScanCompletedTimestamp)).toBeGreaterThan(Number(byName.slow.lastScanTimestamp));
    expect(byName.busy).toMatchObject({
      lastScanStatus: 'COMPLETED',
      lastScanTotalUntriaged: 3,
      lastScanMediumUntriaged: 2,
      lastScanLowUntriaged: 1,
      lastScanHighUntriaged: 0,
    });
    expect(byName.running).toMatchObject({
      lastScanId: running.scanId,
      lastScanStatus: 'STARTED',
      lastScanCompletedTimestamp: '0',
      lastScanTotalUntriaged: 0,
    });

    expect(await envNames(tenant, { lastScanStatus: 'LAST_SCAN_STATUS_SUCCESS' })).toEqual(['busy']);
    expect(await envNames(tenant, { lastScanStatus: 'LAST_SCAN_STATUS_ERRORED,LAST_SCAN_STATUS_IN_PROGRESS' })).toEqual(
      ['running', 'slow'],
    );
    expect(await envNames(tenant, { lastScanStatus: 'LAST_SCAN_STATUS_UNSPECIFIED' })).toEqual(['never']);
    expect(await envNames(tenant, { lastScanDate: 'LAST_24_HOURS' })).toEqual(['busy', 'running', 'slow']);
    expect(await envNames(tenant, { lastScanDate: 'OVER_30_DAYS' })).toEqual([]);
    expect(await envNames(tenant, { sortField: 'scanDate', sortDir: 'desc' })).toEqual([
      'running',
      'busy',
      'slow',
      'never',
    ]);
    expect(await envNames(tenant, { sortField: 'scanDate', sortDir: 'asc', pageSize: 2 })).toEqual(['never', 'slow']);
    expect(await envNames(tenant, { sortField: 'scanFindingsCounts', sortDir: 'desc' })).toEqual([
      'busy',
      'slow',
      expect.any(String),
      expect.any(String),
    ]);
    expect((await envNames(tenant, { sortField: 'scanDuration', sortDir: 'desc' }))[0]).toBe('slow');

    const health = await envView(tenant, { includeAppHealthStats: true });
    expect(health.findingsHealth).toEqual({ high: 1, medium: 2, low: 1, total: 4 });
    expect(health.scanFrequencyHealth).toMatchObject({
      totalApps: 1,
      appsScannedWithinSevenDays: 1,
      appsNeverScanned: 0,
      failedScansCount: 1,
    });
  });

  it('an older scan completing after a newer one started leaves the newer one as the last scan', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const older = await startScan(tenant.token, appId);
    const newer = await startScan(tenant.token, appId);
    await completeScan(tenant.token, older.scanId);
    const [view] = (await envView(tenant)).environments;
    expect(view).toMatchObject({ lastScanId: newer.scanId, lastScanStatus: 'STARTED' });
  });
});

describe('list scans (GET /api/v1/scan/{orgId})', () => {
  it('lists newest first, filters by appIds, envs, teamIds, start/end and tag, sorts by id or name, and pages', async () => {
    const tenant = await createTenant();
    const a = await createApp(tenant, { name: 'alpha', env: 'dev' });
    const b = await createApp(tenant, { name: 'beta', env: 'dev' });
    const s1 = await startScan(tenant.token, a, { env: 'dev', tags: [{ name: 'branch', value: 'main' }] });
    await reportAlerts(tenant.token, s1.scanId, [alert('1', 'High', 2)]);
    await completeScan(tenant.token, s1.scanId);
    const between = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const s2 = await startScan(tenant.token, b, { env: 'prod', tags: [{ name: 'branch', value: 'develop' }] });
    const s3 = await startScan(tenant.token, a, { env: 'prod' });
    const list = async (query: Record<string, string | number> = {}) => {
      const out = await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token, query });
      expect(out.status, out.text).toBe(200);
      return out.body;
    };
    const ids = async (query: Record<string, string | number> = {}) =>
      (await list(query)).applicationScanResults.map((r: { scan: { id: string } }) => r.scan.id);

    const all = await list();
    expect(all.totalCount).toBe('3');
    expect(all.nextPageToken).toBe('4'); // past the end: totalCount + 1
    expect(all.applicationScanResults.map((r: { scan: { id: string } }) => r.scan.id)).toEqual([
      s3.scanId,
      s2.scanId,
      s1.scanId,
    ]);
    const oldest = all.applicationScanResults[2];
    expect(oldest).toMatchObject({
      applicationAlerts: [],
      percentComplete: '100',
      alertStats: { totalAlerts: 2, uniqueAlerts: 1 },
      scan: { applicationName: 'alpha', env: 'dev', status: 'COMPLETED' },
    });
    expect(all.applicationScanResults[0]).toMatchObject({
      percentComplete: '0',
      scanDuration: '0',
      scan: { status: 'STARTED' },
    });

    expect(await ids({ appIds: a })).toEqual([s3.scanId, s1.scanId]);
    expect(await ids({ envs: 'PROD' })).toEqual([s3.scanId, s2.scanId]);
    expect(await ids({ start: between })).toEqual([s3.scanId, s2.scanId]);
    expect(await ids({ end: between })).toEqual([s1.scanId]);
    expect(await ids({ tag: 'branch:dev*' })).toEqual([s2.scanId]);
    expect(await ids({ tag: 'branch:main|develop' })).toEqual([s2.scanId, s1.scanId]);
    expect(await ids({ teamIds: randomUUID() })).toEqual([]);
    expect(await ids({ applicationTypes: 'CLOUD' })).toEqual([]);
    expect(await ids({ sortField: 'id' })).toEqual([s1.scanId, s2.scanId, s3.scanId].sort());
    expect(await ids({ sortField: 'name', sortDir: 'desc' })).toEqual([s2.scanId, s3.scanId, s1.scanId]);
    expect(await ids({ sortDir: 'asc' })).toEqual([s1.scanId, s2.scanId, s3.scanId]);
    const page = await list({ pageSize: 2, pageToken: 1 });
    expect(page).toMatchObject({ totalCount: '3', nextPageToken: '4' });
    expect(page.applicationScanResults.map((r: { scan: { id: string } }) => r.scan.id)).toEqual([s1.scanId]);
    expect((await list({ pageSize: 2 })).nextPageToken).toBe('1');
    const bad = await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token, query: { sortField: 'date' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('sortField');

    // Team filter: an application owned by the caller's team.
    const teamId = randomUUID();
    await joinTeams(tenant.orgId, tenant.userId, [teamId]);
    const teamApp = await createApp(tenant, { name: 'gamma', env: 'dev' });
    const s4 = await startScan(tenant.token, teamApp);
    expect(await ids({ teamIds: teamId })).toEqual([s4.scanId]);
  });
});

describe('delete scan and cascades', () => {
  it('deletes a scan, moves the last-scan fields to the previous scan or clears them, and records SCAN_REMOVED', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const first = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, first.scanId, [alert('1', 'High', 3)]);
    await completeScan(tenant.token, first.scanId);
    const second = await startScan(tenant.token, appId, { config: 'app:\n  env: other\n' });
    await reportAlerts(tenant.token, second.scanId, [alert('2', 'Low', 2)]);
    await completeScan(tenant.token, second.scanId);

    const removed = await api('DELETE', `/api/v1/scan/${second.scanId}`, { token: tenant.token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({});
    let [view] = (await envView(tenant)).environments;
    expect(view).toMatchObject({
      lastScanId: first.scanId,
      lastScanStatus: 'COMPLETED',
      lastScanHighUntriaged: 3,
      latestScanConfigHash: first.configHash,
    });
    expect((await api('GET', `/api/v1/scan/${second.scanId}/alerts`, { token: tenant.token })).status).toBe(404);
    expect((await api('DELETE', `/api/v1/scan/${second.scanId}`, { token: tenant.token })).status).toBe(404);
    // Its configuration is no longer used by a scan of the application; the first one's still is.
    expect((await api('GET', `/api/v1/app/${appId}/config/${second.configHash}`, { token: tenant.token })).status).toBe(
      404,
    );
    expect((await api('GET', `/api/v1/app/${appId}/config/${first.configHash}`, { token: tenant.token })).status).toBe(
      200,
    );

    await api('DELETE', `/api/v1/scan/${first.scanId}`, { token: tenant.token });
    [view] = (await envView(tenant)).environments;
    expect(view).toMatchObject({
      lastScanId: '',
      lastScanStatus: 'UNKNOWN',
      lastScanTimestamp: '0',
      lastScanTotalUntriaged: 0,
      latestScanConfigHash: '',
    });
    expect(await envNames(tenant, { lastScanStatus: 'LAST_SCAN_STATUS_UNSPECIFIED' })).toEqual(['dev']);
    expect((await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token })).body.totalCount).toBe('0');
    const { pk, skPrefix } = keys.environmentData(appId, view.environmentId);
    const left = await queryAll({ partition: pk, skPrefix });
    // Use counters at 0; the findings the environment's scans saw stay (first seen, and what triage rules address),
    // and so do its trend figures (a scan delete changes none: docs/GOVERNANCE.md, Trends) and its open issues'
    // summary, which counts those findings (shared/results/issue-summary.ts), the issues they share
    // (shared/trends/projections/shared-issues.ts), and its overdue digest, whose version the deletes moved
    // (shared/overview/overdue-digests.ts).
    const trend = left.filter((item) => String(item.entity).startsWith('trend'));
    expect(new Set(trend.map((item) => item.entity))).toEqual(new Set(['trendDay', 'trendTotal']));
    expect(
      left
        .filter((item) => !trend.includes(item))
        .map((item) => item.entity)
        .sort(),
    ).toEqual([
      'finding',
      'finding',
      'issueDetection',
      'issueDetection',
      'openIssues',
      'overdueDigest',
      'scanConfigUse',
      'scanConfigUse',
      'sharedIssues',
    ]);
    expect(await getScanLocation(first.scanId)).toBeUndefined();
    expect((await auditTypes(tenant)).filter((t) => t === 'SCAN_REMOVED')).toHaveLength(2);
  });

  it('environment and application deletes remove scans, alerts, messages, lookups and stored configurations', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const kept = await startScan(tenant.token, appId, { env: 'kept' });
    const gone = await startScan(tenant.token, appId, { env: 'gone' });
    await reportAlerts(tenant.token, gone.scanId, [alert('1', 'High', 30)]);
    await api('DELETE', `/api/v1/app/${appId}/env/${gone.envId}`, { token: tenant.token });
    expect(
      await queryAll({
        partition: keys.environmentData(appId, gone.envId).pk,
        skPrefix: keys.environmentData(appId, gone.envId).skPrefix,
      }),
    ).toEqual([]);
    expect(await getScanLocation(gone.scanId)).toBeUndefined();
    expect((await api('GET', `/api/v1/scan/${gone.scanId}/alerts`, { token: tenant.token })).status).toBe(404);
    expect((await api('GET', `/api/v1/scan/${kept.scanId}/alerts`, { token: tenant.token })).status).toBe(200);

    await reportAlerts(tenant.token, kept.scanId, [alert('1', 'High', 5)]);
    expect((await api('DELETE', `/api/v1/app/${appId}`, { token: tenant.token })).status).toBe(200);
    expect(await queryAll({ partition: keys.applicationPartition(appId).pk })).toEqual([]);
    expect(await getScanLocation(kept.scanId)).toBeUndefined();
    const objects = await (
      await s3()
    ).send(new ListObjectsV2Command({ Bucket: config.assetsBucket, Prefix: objectKeys.applicationPrefix(appId) }));
    expect(objects.Contents ?? []).toEqual([]);
    expect((await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token })).body.totalCount).toBe('0');
  });
});
