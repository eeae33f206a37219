import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { createApp } from '../integration/scan-helpers.ts';
import { wapitiFixture } from '../../scanner/test/wapiti-expected.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { launchBrowser, signIn } from './browser.ts';

// Findings of a tool other than ZAP on the dashboard, in Chromium: a Wapiti report imported (its headers module
// reports four missing headers of one page), each finding shown by what it is about, the overview's figures that
// agree with one another, and the pages naming the tool that found them rather than ZAP or HawkScan.

vi.setConfig({ testTimeout: 240_000, expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
let appId: string;
let scanId: string;
const org = (path: string) => `${baseUrl()}/org/${tenant.orgId}/${path}`;

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant] = await Promise.all([launchBrowser(), createTenant()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize({ width: 1440, height: 900 });
  appId = await createApp(tenant, { name: 'headers-shop', env: 'dev' });
  const imported = await api('POST', `/api/v1/app/${appId}/scan/import`, {
    token: tenant.token,
    rawBody: wapitiFixture('wapiti-json_3.0.4_local-node-target_GENERATED-here.json'),
    contentType: 'text/plain',
    query: { env: 'dev' },
  });
  expect(imported.status, imported.text).toBe(200);
  scanId = imported.body.scanId;
  await signIn(page, tenant.apiKey);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** A table's body rows as the text of their cells. */
async function rows(table: Locator): Promise<string[][]> {
  await table.waitFor();
  return table.evaluate((t: HTMLTableElement) =>
    [...t.tBodies[0]!.rows].map((r) => [...r.cells].map((c) => (c.textContent ?? '').trim())),
  );
}

describe('dashboard findings of another tool', () => {
  it('names the header each finding of one page is about', async () => {
    await page.goto(org(`scan/${scanId}/alert/wapiti.http-secure-headers`));
    await page.getByRole('heading', { level: 1, name: 'HTTP Secure Headers' }).waitFor();
    const table = page.getByRole('table', { name: 'Findings of HTTP Secure Headers' });
    const cells = await rows(table);
    const column = (await table.getByRole('columnheader').allInnerTexts()).indexOf('Parameter');
    expect(column).toBeGreaterThan(0);
    expect(cells.map((r) => r[column]).sort()).toEqual([
      'Strict-Transport-Security',
      'X-Content-Type-Options',
      'X-Frame-Options',
      'X-XSS-Protection',
    ]);
    // Four findings, told apart: each its own selection.
    const boxes = await table
      .getByRole('checkbox', { name: /^Select GET / })
      .evaluateAll((all) => all.map((b) => b.getAttribute('aria-label')));
    expect(new Set(boxes).size).toBe(4);
  });

  it("shows the overview's open findings once each, in the summary and the riskiest applications alike", async () => {
    await page.goto(org('overview'));
    const summary = Object.fromEntries(await rows(page.getByRole('table', { name: /^Summary of/ })));
    const riskiest = await rows(page.getByRole('table', { name: /^Applications with the most open findings/ }));
    expect(riskiest.map((r) => r[0])).toEqual(['headers-shop']);
    const [, high, medium, low, total] = riskiest[0]!;
    expect([high, medium, low]).toEqual([
      summary['Open High findings now'],
      summary['Open Medium findings now'],
      summary['Open Low findings now'],
    ]);
    expect(Number(total)).toBe(Number(high) + Number(medium) + Number(low));
    expect(Number(low)).toBeGreaterThanOrEqual(4); // the four missing headers at least
  });

  it('names the tool that found a scan, shows a finding its severity, and says why a report has no response', async () => {
    await page.goto(org(`scan/${scanId}`));
    await page.getByRole('heading', { level: 1, name: /^Scan of/ }).waitFor();
    const facts = page.locator('dl.facts');
    expect(await facts.innerText()).not.toContain('HawkScan');
    expect(await page.getByTestId('scan-scanner').innerText()).toBe('Wapiti 3.0.4');
    // What changed (getScanDiff): the tool's first scan here, every finding new, listed first.
    await expect
      .poll(() => page.getByTestId('scan-changes-against').textContent())
      .toMatch(/^The first scan of its tool here: every finding is new \(\d+\)\.$/);
    expect(await page.getByTestId('scan-changes-new').locator('li').count()).toBeGreaterThan(0);

    const alert = await api('GET', `/api/v1/scan/${scanId}/alert/wapiti.http-secure-headers`, {
      token: tenant.token,
    });
    const uri = alert.body.applicationScanAlertUris[0];
    await page.goto(
      org(`scan/${scanId}/finding/${uri.alertUriId}/${uri.msgId}?plugin=wapiti.http-secure-headers&page=0`),
    );
    await page.getByRole('heading', { level: 1, name: /^Finding at/ }).waitFor();
    expect(await page.getByTestId('finding-severity').innerText()).toBe(alert.body.alert.severity);
    const body = await page.locator('main').innerText();
    expect(body).not.toContain('ZAP');
    expect(body).toContain('Wapiti writes no response');
  });

  it('offers to import any tool’s report into an environment, before its first scan and after', async () => {
    const env = async (id: string, name: string) => {
      const listed = await api('GET', `/api/v2/org/${tenant.orgId}/envs`, {
        token: tenant.token,
        query: { appIds: id },
      });
      const found = listed.body.environments.find((e: { environmentName: string }) => e.environmentName === name);
      await page.goto(org(`app/${id}/env/${found.environmentId}`));
      await page.getByRole('heading', { level: 1, name }).waitFor();
    };
    const fresh = await createApp(tenant, { name: 'unscanned-shop', env: 'staging' });
    for (const [id, name, scanner] of [
      [fresh, 'staging', '—'],
      [appId, 'dev', 'Wapiti 3.0.4'],
    ] as const) {
      await env(id, name);
      const importer = page.getByRole('region', { name: 'Import a scanner report' });
      await importer.getByLabel(/^Scanner report \(ZAP, Wapiti, Nuclei, Burp Suite, SARIF/).waitFor();
      expect(await importer.getByRole('button', { name: `Import into ${name}` }).count()).toBe(1);
      expect(await page.getByText(/Import a ZAP report/).count()).toBe(0);
      if (scanner !== '—') expect(await page.getByTestId('env-scanner').innerText()).toBe(scanner);
      expect(await page.locator('main').innerText()).not.toContain('HawkScan version');
    }
  });
});
