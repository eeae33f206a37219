import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { completeScan, createApp, reportAlerts, startScan } from '../integration/scan-helpers.ts';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { findingsOfEnvironment } from '../../shared/results/finding-repository.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, signIn } from './browser.ts';

// The overview page in Chromium (docs/GOVERNANCE.md, Trends and The overview), against the local stack: every
// figure its charts' tables and lists show is compared with what the API answers for the data this test creates
// (getOrganizationTrends, getApplicationTrends, getOrganizationOverview), and the printable report.
vi.setConfig({ testTimeout: 240_000, expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
let shop: string;

const alert = (pluginId: string, severity: string, paths: string[]) => ({
  pluginId,
  name: `Plugin ${pluginId}`,
  severity,
  description: `About ${pluginId}`,
  cweId: '89',
  uris: paths.map((uri) => ({
    uri,
    requestMethod: 'GET',
    param: 'id',
    evidence: '',
    otherInfo: '',
    requestHeader: '',
  })),
});

async function scanOnce(appId: string, env: string, alerts: unknown[]) {
  const started = await startScan(tenant.token, appId, { env });
  await reportAlerts(tenant.token, started.scanId, alerts);
  await completeScan(tenant.token, started.scanId);
  return started;
}

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant] = await Promise.all([launchBrowser(), createTenant()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  // shop: High /a /b /c and Medium /d, then a rescan without /c (one fix); its Highs first seen 50 days ago (overdue).
  shop = await createApp(tenant, { name: 'shop', env: 'prod' });
  await scanOnce(shop, 'prod', [alert('40018', 'High', ['/a', '/b', '/c']), alert('10038', 'Medium', ['/d'])]);
  const rescan = await scanOnce(shop, 'prod', [alert('40018', 'High', ['/a', '/b']), alert('10038', 'Medium', ['/d'])]);
  for await (const f of findingsOfEnvironment({ applicationId: shop, environmentId: rescan.envId }))
    if (f.severity === 'High')
      await db.send(
        new UpdateCommand({
          TableName: process.env.TABLE_NAME,
          Key: keys.finding(shop, rescan.envId, f.findingHash!),
          UpdateExpression: 'SET firstSeen = :t',
          ExpressionAttributeValues: { ':t': Date.now() - 50 * 86_400_000 },
        }),
      );
  // blog: a Low finding; docs: never scanned (a coverage gap).
  const blog = await createApp(tenant, { name: 'blog', env: 'dev' });
  await scanOnce(blog, 'dev', [alert('10020', 'Low', ['/x'])]);
  await createApp(tenant, { name: 'docs', env: 'staging' });
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

/** A table's body rows as cell texts (header cell first), found by its caption. */
async function rows(p: Page, caption: string | RegExp): Promise<string[][]> {
  const table: Locator = p.getByRole('table', { name: caption });
  await table.waitFor();
  return table.evaluate((t: HTMLTableElement) =>
    [...t.tBodies[0]!.rows].map((r) => [...r.cells].map((c) => (c.textContent ?? '').trim())),
  );
}
const get = async (path: string, query?: Record<string, string>) => {
  const out = await api('GET', path, { token: tenant.token, query });
  expect(out.status, out.text).toBe(200);
  return out.body;
};
type Sev = { High?: number; Medium?: number; Low?: number; Info?: number };
const all = (s: Sev | undefined) => (s?.High ?? 0) + (s?.Medium ?? 0) + (s?.Low ?? 0) + (s?.Info ?? 0);
type Day = { date: string; open: Sev; new: Sev; fixed: Sev; scannedWithin7Days?: number; scannedWithin30Days?: number };
/**
 * A chart table's cells for these days: the figures, or "no data" for each day before the first with any figure
 * (open, new or fixed findings, scanned environments), which the charts show as a gap rather than zeros.
 */
const cells = (days: Day[], pick: (d: Day) => number[]) => {
  const first = days.findIndex((d) => all(d.open) + all(d.new) + all(d.fixed) + (d.scannedWithin30Days ?? 0) > 0);
  return days.map((d, i) => (first < 0 || i < first ? pick(d).map(() => 'no data') : pick(d).map(String)));
};

describe('The overview page in Chromium', () => {
  it('shows the trends and the lists with the figures the API answers, over 30 and 90 days', async () => {
    await signIn(page, tenant.apiKey);
    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    const trends = await get(`/api/v1/org/${tenant.orgId}/trends`, { days: '30' });
    const lastDay = trends.days.at(-1);
    // 30 days: one row a day, open findings at its end.
    const open = await rows(page, 'Open findings by severity');
    expect(open).toHaveLength(30);
    expect(open.map((r) => r[0])).toEqual(trends.days.map((d: { date: string }) => d.date));
    expect(open.at(-1)).toEqual([lastDay.date, ...['High', 'Medium', 'Low'].map((s) => String(lastDay.open[s]))]);
    expect(lastDay.open).toMatchObject({ High: 2, Medium: 1, Low: 1 }); // the data above, as the API counts it
    const flow = await rows(page, 'New and fixed findings');
    expect(flow.map((r) => r.slice(1))).toEqual(cells(trends.days, (d) => [all(d.new), all(d.fixed)]));
    expect(cells(trends.days, () => [0]).at(-1)).toEqual(['0']); // today holds figures
    const coverage = await rows(page, 'Environments scanned');
    expect(coverage.at(-1)).toEqual([
      lastDay.date,
      String(lastDay.scannedWithin7Days),
      String(lastDay.scannedWithin30Days),
    ]);
    const summary = Object.fromEntries(await rows(page, /^Summary of/));
    expect(summary['New findings']).toBe(String(all(trends.summary.new)));
    expect(summary['Fixed findings']).toBe(String(trends.summary.fixes));
    expect(summary['Open High findings now']).toBe(String(lastDay.open.High));

    // The lists: getOrganizationOverview's, row for row.
    const overview = await get(`/api/v1/org/${tenant.orgId}/overview`);
    expect(overview.overdue.findings.length).toBeGreaterThan(0);
    expect(await rows(page, /^Most overdue findings/)).toEqual(
      overview.overdue.findings.map((f: Record<string, any>) => [
        `${f.requestMethod} ${f.url}`,
        f.severity,
        f.applicationName,
        f.environmentName,
        f.dueDate.slice(0, 10),
        String(-f.daysLeft),
      ]),
    );
    expect(await rows(page, /^Applications with the most open findings/)).toEqual(
      overview.riskiestApplications.map((a: Record<string, any>) => [
        a.name,
        String(a.openHigh),
        String(a.openMedium),
        String(a.openLow),
        String(a.openTotal),
        a.lastScannedAt.slice(0, 10),
      ]),
    );
    expect(await rows(page, /^Environments not scanned within 7 days/)).toEqual(
      overview.coverageGaps.environments.map((e: Record<string, any>) => [
        e.environmentName,
        e.applicationName,
        e.lastScannedAt ? e.lastScannedAt.slice(0, 10) : 'never',
      ]),
    );
    expect(overview.coverageGaps.environments.map((e: { applicationName: string }) => e.applicationName)).toEqual([
      'docs',
    ]);
    await expectAccessible(page, 'overview');

    // 90 days: one row a week (13), the newest ending today with the same open figures.
    await page.getByLabel('90 days').check();
    await expect.poll(async () => (await rows(page, 'Open findings by severity')).length).toBe(13);
    const ninety = await get(`/api/v1/org/${tenant.orgId}/trends`, { days: '90' });
    const weeks = await rows(page, 'Open findings by severity');
    expect(weeks.at(-1)![0]).toBe(`${ninety.days.at(-7).date} to ${ninety.days.at(-1).date}`);
    expect(weeks.at(-1)!.slice(1)).toEqual(['High', 'Medium', 'Low'].map((s) => String(ninety.days.at(-1).open[s])));
    const weekFlow = await rows(page, 'New and fixed findings');
    const lastWeek = ninety.days.slice(-7) as { new: Sev; fixed: Sev }[];
    expect(weekFlow.at(-1)!.slice(1)).toEqual([
      String(lastWeek.reduce((n, d) => n + all(d.new), 0)),
      String(lastWeek.reduce((n, d) => n + all(d.fixed), 0)),
    ]);
  });

  it('draws the trends with Recharts under the strict CSP: axis titles, dates, hover values', async () => {
    const errors: string[] = [];
    const onConsole = (m: { type: () => string; text: () => string }) => {
      if (m.type() === 'error') errors.push(m.text());
    };
    page.on('console', onConsole);
    const served = await page.goto(`${baseUrl()}/org/${tenant.orgId}/overview?days=30`);
    expect(served!.headers()['content-security-policy']).toContain("style-src 'self';");
    const chart = page
      .getByRole('figure')
      .filter({ has: page.getByRole('table', { name: 'Open findings by severity' }) });
    const surface = chart.locator('svg.recharts-surface');
    await surface.waitFor();
    const box = (await surface.boundingBox())!;
    expect(box.width).toBeGreaterThan(300);
    expect(box.height).toBeGreaterThan(200);
    const text = await surface.locator('text').allTextContents();
    expect(text).toContain('Day (UTC)'); // the x axis's title
    expect(text).toContain('Open findings (at period end)'); // the y axis's
    const today = new Date().toISOString().slice(0, 10);
    expect(text.some((t) => /^\d{4}-\d{2}-\d{2}$/.test(t))).toBe(true); // dated ticks
    expect(await chart.locator('.recharts-line').count()).toBe(3);
    // Hovering the last day shows its values.
    await page.mouse.move(box.x + box.width - 20, box.y + box.height / 2);
    const tooltip = chart.locator('.recharts-tooltip-wrapper');
    await expect.poll(() => tooltip.innerText()).toContain(today);
    expect(await tooltip.innerText()).toMatch(/High\s*:\s*2/);
    // The environment page's scans as stacked bars, with their axes.
    const apps = await get(`/api/v2/org/${tenant.orgId}/envs`, { appIds: shop });
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/app/${shop}/env/${apps.environments[0].environmentId}`);
    const bars = page.locator('figure.chart svg.recharts-surface');
    await bars.waitFor();
    expect(await bars.locator('text').allTextContents()).toEqual(
      expect.arrayContaining(['Scan (start time)', 'Findings']),
    );
    expect(await page.locator('figure.chart .recharts-bar-rectangle').count()).toBeGreaterThan(0);
    await expectAccessible(page, 'environment chart');
    page.off('console', onConsole);
    expect(errors, 'console errors (a CSP refusal among them)').toEqual([]);
  });

  it("lays the executive report out within the A4 sheet's @page margins, every column shown, in the PDF too", async () => {
    await signIn(page, tenant.apiKey);
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/executive-report?days=90`);
    await page.getByRole('heading', { level: 1, name: /^Security report: organization/ }).waitFor();
    await page.getByRole('table', { name: 'Open findings by severity' }).waitFor();
    await page.emulateMedia({ media: 'print' });
    // The sheet's margins, as the stylesheet's @page rule sets them.
    const margins = await page.evaluate(() => {
      const rules = [...document.styleSheets].flatMap((sheet) => [...sheet.cssRules]);
      const pageRule = rules.find((r): r is CSSPageRule => r instanceof CSSPageRule);
      return pageRule
        ? {
            size: pageRule.style.getPropertyValue('size').toLowerCase(),
            top: pageRule.style.marginTop,
            left: pageRule.style.marginLeft,
            right: pageRule.style.marginRight,
            bottom: pageRule.style.marginBottom,
          }
        : undefined;
    });
    expect(margins).toEqual({ size: 'a4', top: '14mm', bottom: '14mm', left: '12mm', right: '12mm' });
    // The printable width of an A4 sheet (210 mm) inside those margins, in CSS pixels (96 per inch).
    const mm = 96 / 25.4;
    const printable = Math.floor((210 - 12 - 12) * mm);
    await page.setViewportSize({ width: printable, height: Math.floor((297 - 28) * mm) });
    const layout = await page.evaluate(() => {
      const right = (el: Element) => el.getBoundingClientRect().right;
      return {
        pageWidth: document.documentElement.scrollWidth,
        tables: [...document.querySelectorAll('main table')]
          .filter((t) => (t as HTMLElement).offsetParent !== null)
          .map((t) => {
            const heads = [...t.querySelectorAll('thead th')];
            const last = heads.at(-1);
            return {
              caption: (t.querySelector('caption')?.textContent ?? '').trim(),
              right: right(t),
              lastHeading: (last?.textContent ?? '').trim(),
              lastRight: last ? right(last) : 0,
              // A cell narrower than its text would cut it.
              clipped: [...t.querySelectorAll('th, td')].filter((c) => c.scrollWidth > c.clientWidth + 1).length,
            };
          }),
      };
    });
    expect(layout.pageWidth).toBeLessThanOrEqual(printable);
    const open = layout.tables.find((t) => t.caption === 'Open findings by severity');
    expect(open?.lastHeading).toBe('Low');
    for (const t of layout.tables) {
      expect(t.right, t.caption).toBeLessThanOrEqual(printable);
      expect(t.lastRight, t.caption).toBeLessThanOrEqual(printable);
      expect(t.clipped, t.caption).toBe(0);
    }
    // Chromium renders the same print layout into the PDF, on A4 sheets of the @page rule (595 x 842 points).
    const pdf = (await page.pdf({ preferCSSPageSize: true })).toString('latin1');
    expect(pdf.startsWith('%PDF-')).toBe(true);
    const boxes = [...pdf.matchAll(/\/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]/g)].map((m) => [
      Math.round(Number(m[1])),
      Math.round(Number(m[2])),
    ]);
    expect(boxes.length).toBeGreaterThan(0);
    for (const box of boxes) expect(box).toEqual([595, 842]);
    await page.emulateMedia({ media: 'screen' });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('prints the executive report of the organization or of an application over a period', async () => {
    await signIn(page, tenant.apiKey);
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/overview?days=90`);
    await page.getByRole('link', { name: 'Printable report' }).click();
    await page.getByRole('heading', { level: 1, name: /^Security report: organization/ }).waitFor();
    await page.getByText('Period: the last 90 days (UTC).').waitFor();
    const overview = await get(`/api/v1/org/${tenant.orgId}/overview`);
    expect((await rows(page, /^Most overdue findings/)).map((r) => r[0])).toEqual(
      overview.overdue.findings.map((f: Record<string, string>) => `${f.requestMethod} ${f.url}`),
    );

    // The print button opens the browser's print dialog (save as PDF there); on paper the navigation is gone.
    await page.evaluate(() => {
      (window as unknown as { printed: number }).printed = 0;
      window.print = () => void (window as unknown as { printed: number }).printed++;
    });
    await page.getByRole('button', { name: 'Print or save as PDF' }).click();
    expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
    await page.emulateMedia({ media: 'print' });
    expect(await page.getByRole('navigation', { name: 'Sections' }).isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Print or save as PDF' }).isVisible()).toBe(false);
    expect(await page.getByRole('table', { name: 'Open findings by severity' }).isVisible()).toBe(true);
    const pdf = await page.pdf({ format: 'A4' });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    await page.emulateMedia({ media: 'screen' });
    await expectAccessible(page, 'executive report');

    // One application from one date to another: its own trends, sliced to those days.
    const today = Date.now();
    const to = new Date(today).toISOString().slice(0, 10);
    const from = new Date(today - 9 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('Report on', { exact: true }).selectOption({ label: 'application shop' });
    await page.getByLabel('Period', { exact: true }).selectOption({ label: 'from and to' });
    await page.getByLabel('From', { exact: true }).fill(from);
    await page.getByLabel('To', { exact: true }).fill(to);
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('heading', { level: 1, name: 'Security report: application shop' }).waitFor();
    await page.getByText(`Period: ${from} to ${to} (UTC).`).waitFor();
    // The days from `from` to `to` of the application's trends: the last 11, as midnight (UTC) may have fallen since.
    const appTrends = await get(`/api/v1/org/${tenant.orgId}/app/${shop}/trends`, { days: '11' });
    const period = appTrends.days.filter((d: { date: string }) => d.date >= from && d.date <= to);
    expect(period).toHaveLength(10);
    const open = await rows(page, 'Open findings by severity');
    expect(open).toEqual(
      cells(period, (d) => [d.open.High ?? 0, d.open.Medium ?? 0, d.open.Low ?? 0]).map((c, i) => [
        period[i].date,
        ...c,
      ]),
    );
    const overdue = await rows(page, /overdue findings, most overdue first$/);
    expect(overdue.map((r) => r[1])).toEqual(['High', 'High']);
  });
});
