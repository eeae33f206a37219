import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { alert, completeScan, createApp, reportAlerts, startScan } from '../integration/scan-helpers.ts';
import { hostedScanWithCoverage, sampleCoverage } from '../integration/hosted-run-helpers.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, signIn } from './browser.ts';

// A hosted scan's coverage verdict on the dashboard's scan page (docs/HOSTED-SCANS.md, Coverage), in a real
// Chromium against the local stack: the verdict and its reasons for a scan with a coverage record, nothing for one
// without.

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant] = await Promise.all([launchBrowser(), createTenant()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("the scan page's coverage verdict", () => {
  it('shows a hosted scan’s verdict and reasons, and nothing for a scan without a coverage record', async () => {
    const { scanId } = await hostedScanWithCoverage(tenant);
    const appId = await createApp(tenant);
    const reported = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, reported.scanId, [alert('40012', 'High', 1)]);
    await completeScan(tenant.token, reported.scanId);

    await signIn(page, tenant.apiKey);
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/scan/${scanId}`);
    await page.getByRole('heading', { level: 2, name: 'Coverage' }).waitFor();
    expect(await page.getByTestId('scan-verdict').innerText()).toBe(
      'Authentication degraded 7 pages · 120 requests, 90 with the session',
    );
    expect(await page.getByTestId('scan-verdict-reasons').getByRole('listitem').allInnerTexts()).toEqual(
      sampleCoverage.reasons,
    );
    await expectAccessible(page, 'scan page with its coverage');

    await page.goto(`${baseUrl()}/org/${tenant.orgId}/scan/${reported.scanId}`);
    await page.getByRole('heading', { level: 2, name: /1 alert/ }).waitFor();
    expect(await page.getByRole('heading', { level: 2, name: 'Coverage' }).count()).toBe(0);
    expect(await page.getByText(/could not|went wrong/i).count()).toBe(0);
  });
});
