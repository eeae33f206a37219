import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { completeScan, createApp, pluginAlert, reportAlerts, startScan } from '../integration/scan-helpers.ts';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { findingsOfEnvironment } from '../../shared/results/finding-repository.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, signIn } from './browser.ts';

// The applications list with their risk in Chromium (listApplicationRisk, docs/GOVERNANCE.md, Applications by risk):
// its columns show what the API answers (open issues by severity, the last scan and its verdict, SLA breaches),
// riskiest first, and the sorts by name and by risk ascending reorder the rows; another organization's applications
// never show.
vi.setConfig({ testTimeout: 240_000, expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
const ids: Record<string, string> = {};

const alert = pluginAlert;

async function scan(appId: string, env: string, alerts: unknown[], status: 'COMPLETED' | 'ERROR' = 'COMPLETED') {
  const started = await startScan(tenant.token, appId, { env });
  if (alerts.length) await reportAlerts(tenant.token, started.scanId, alerts);
  await completeScan(tenant.token, started.scanId, status);
  return started;
}

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant] = await Promise.all([launchBrowser(), createTenant()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  // shop: two High findings first seen 50 days ago (past every SLA's days: breaches) and a Medium one.
  ids.shop = await createApp(tenant, { name: 'shop', env: 'prod' });
  const shop = await scan(ids.shop, 'prod', [alert('40018', 'High', ['/a', '/b']), alert('10038', 'Medium', ['/d'])]);
  for await (const f of findingsOfEnvironment({ applicationId: ids.shop, environmentId: shop.envId }))
    if (f.severity === 'High')
      await db.send(
        new UpdateCommand({
          TableName: process.env.TABLE_NAME,
          Key: keys.finding(ids.shop, shop.envId, f.findingHash!),
          UpdateExpression: 'SET firstSeen = :t',
          ExpressionAttributeValues: { ':t': Date.now() - 50 * 86_400_000 },
        }),
      );
  // blog: three Medium findings (more findings than shop, fewer High: less risky); api: one Low, then a scan that
  // errored; docs: never scanned; worker: a scan still running.
  ids.blog = await createApp(tenant, { name: 'blog', env: 'dev' });
  await scan(ids.blog, 'dev', [alert('10038', 'Medium', ['/x', '/y', '/z'])]);
  ids.api = await createApp(tenant, { name: 'api', env: 'staging' });
  await scan(ids.api, 'staging', [alert('10020', 'Low', ['/l'])]);
  await scan(ids.api, 'staging', [], 'ERROR');
  ids.docs = await createApp(tenant, { name: 'docs', env: 'staging' });
  ids.worker = await createApp(tenant, { name: 'worker', env: 'dev' });
  await startScan(tenant.token, ids.worker, { env: 'dev' });
  // Another organization's riskier application never shows.
  const other = await createTenant();
  const theirs = await createApp(other, { name: 'theirs', env: 'prod' });
  const started = await startScan(other.token, theirs, { env: 'prod' });
  await reportAlerts(other.token, started.scanId, [alert('40018', 'High', ['/1', '/2', '/3'])]);
  await completeScan(other.token, started.scanId);
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

const CAPTION = /^Applications, \d+ in all, by/;
const COLUMNS = ['Name', 'Open issues', 'Last scan', 'Verdict', 'SLA breaches', 'Status', 'Type'];

async function table(p: Page) {
  const t = p.getByRole('table', { name: CAPTION });
  await t.waitFor();
  return t.evaluate((el: HTMLTableElement) => ({
    headers: [...el.tHead!.rows[0]!.cells].map((c) => (c.textContent ?? '').trim()),
    rows: [...el.tBodies[0]!.rows].map((r) => [...r.cells].map((c) => (c.textContent ?? '').trim())),
  }));
}
const names = async (p: Page) => (await table(p)).rows.map((r) => r[0]);

type Risk = Record<string, any>;
/** A row as the page shows the API's figures. */
const expected = (a: Risk) => [
  a.name,
  `High: ${a.openHigh ?? 0} Medium: ${a.openMedium ?? 0} Low: ${a.openLow ?? 0}`,
  a.lastScannedAt ? `${a.lastScannedAt.slice(0, 10)} (${a.lastScanEnvironmentName})` : 'never',
  !a.lastScanStatus
    ? 'Never scanned'
    : a.lastScanStatus === 'ERROR'
      ? 'Failed'
      : a.lastScanStatus === 'STARTED'
        ? 'Running'
        : a.lastScanUntriaged
          ? `${a.lastScanUntriaged} untriaged`
          : 'Passed: nothing untriaged',
  a.overdueTotal
    ? `${a.overdueTotal} (High ${a.overdueHigh ?? 0}, Medium ${a.overdueMedium ?? 0}, Low ${a.overdueLow ?? 0})`
    : 'none',
  `${a.environments} environment${a.environments === 1 ? '' : 's'}`,
  a.applicationType,
];

describe('The applications list with risk in Chromium', () => {
  it('shows open issues by severity, the last scan and its verdict and SLA breaches, riskiest first', async () => {
    const answer = await api('GET', `/api/v1/org/${tenant.orgId}/apps/risk`, { token: tenant.token });
    expect(answer.status, answer.text).toBe(200);
    const risk: Risk[] = answer.body.applications;
    // The data above, as the API counts it.
    expect(risk.map((a) => a.name)).toEqual(['shop', 'blog', 'api', expect.any(String), expect.any(String)]);
    expect(risk[0]).toMatchObject({ openHigh: 2, openMedium: 1, openLow: 0, overdueHigh: 2, overdueTotal: 2 });
    expect(risk[0]!.lastScanStatus).toBe('COMPLETED');
    expect(risk[1]).toMatchObject({ openHigh: 0, openMedium: 3, overdueTotal: 0, lastScanUntriaged: 3 });
    expect(risk[2]).toMatchObject({ openLow: 1, lastScanStatus: 'ERROR', failedScans: 1 });
    const byName = Object.fromEntries(risk.map((a) => [a.name, a]));
    expect(byName.docs).toMatchObject({ lastScanStatus: '', lastScannedAt: '', environments: 1 });
    expect(byName.worker).toMatchObject({ lastScanStatus: 'STARTED' });

    await signIn(page, tenant.apiKey);
    await page.getByRole('link', { name: 'Applications', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Applications' }).waitFor();
    const shown = await table(page);
    expect(shown.headers).toEqual(COLUMNS);
    expect(shown.rows).toEqual(risk.map(expected));
    expect(shown.rows.map((r) => r[0])).not.toContain('theirs');
    expect(shown.rows[0]![4]).toBe('2 (High 2, Medium 0, Low 0)');
    expect(shown.rows[2]![3]).toBe('Failed');
    // The last scan links to it.
    await page
      .getByRole('link', { name: risk[0]!.lastScannedAt.slice(0, 10) })
      .first()
      .click();
    await expect.poll(() => page.url()).toContain(`/scan/${risk[0]!.lastScanId}`);
    await page.goBack();
    await expectAccessible(page, 'applications by risk');
  });

  it('sorts by name, by risk ascending and by last scan, and keeps the sort in the URL', async () => {
    await signIn(page, tenant.apiKey);
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/apps`);
    await expect.poll(() => names(page)).toEqual(['shop', 'blog', 'api', expect.any(String), expect.any(String)]);
    await page.getByLabel('Sort by').selectOption('name');
    await page.getByLabel('Order').selectOption('asc');
    await expect.poll(() => names(page)).toEqual(['api', 'blog', 'docs', 'shop', 'worker']);
    expect(new URL(page.url()).searchParams.get('sort')).toBe('name');
    await page.getByLabel('Sort by').selectOption('risk');
    await expect.poll(() => names(page)).toEqual([expect.any(String), expect.any(String), 'api', 'blog', 'shop']);
    // Last scan, newest first: worker's running scan started last; docs, never scanned, comes last.
    await page.getByLabel('Sort by').selectOption('lastScannedAt');
    await page.getByLabel('Order').selectOption('desc');
    await expect.poll(() => names(page)).toEqual(['worker', 'api', 'blog', 'shop', 'docs']);
    // A shared link keeps the order; the search filters it.
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/apps?sort=risk&dir=desc&q=o`);
    await expect.poll(() => names(page)).toEqual(['shop', 'blog', expect.any(String), expect.any(String)]);
  });

  it('refuses a page size past the limit and an unknown sort, naming them', async () => {
    const big = await api('GET', `/api/v1/org/${tenant.orgId}/apps/risk`, {
      token: tenant.token,
      query: { pageSize: '51' },
    });
    expect(big.status).toBe(400);
    expect(big.body.message).toContain('pageSize');
    const sort = await api('GET', `/api/v1/org/${tenant.orgId}/apps/risk`, {
      token: tenant.token,
      query: { sortField: 'severity' },
    });
    expect(sort.status).toBe(400);
    expect(sort.body.message).toContain('sortField');
    const paged = await api('GET', `/api/v1/org/${tenant.orgId}/apps/risk`, {
      token: tenant.token,
      query: { pageSize: '2', pageToken: '1' },
    });
    expect(paged.body.applications.map((a: Risk) => a.name)).toEqual(['api', expect.any(String)]);
    expect(paged.body).toMatchObject({ totalCount: '5', hasNext: true, hasPrev: true });
  });
});
