import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { api } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { completeScan, reportAlerts, startScan } from '../integration/scan-helpers.ts';
import { startFakeTracker, type FakeTracker } from '../integration/tracker-fakes.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, openSection, signIn } from './browser.ts';

// The dashboard's Issue trackers page and a finding's ticket (docs/TRACKERS.md) in Chromium: connect a GitHub
// repository (a fake of GitHub's REST API on loopback), promote a finding from its page, see its ticket once made,
// then disable the connection, replace its token and remove it. The token is never shown back.

vi.setConfig({ testTimeout: 240_000, expect: { poll: { timeout: 20_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
let github: FakeTracker;
const token = `ghp_${crypto.randomUUID().replaceAll('-', '')}`;

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant, github] = await Promise.all([
    launchBrowser(),
    createTenant(),
    startFakeTracker('github', { token, repository: 'acme/shop' }),
  ]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  // The fake listens on loopback: the organization allows private receivers (the Integrations page's own test
  // covers that button).
  const allowed = await api('PUT', `/api/v1/org/${tenant.orgId}/integrations/settings`, {
    token: tenant.token,
    body: { allowPrivateNetworks: true },
  });
  expect(allowed.status, allowed.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await github?.close();
});

describe('dashboard issue trackers', () => {
  it('connects GitHub, promotes a finding from its page and shows its ticket, disables, replaces the token and removes the connection', async () => {
    const app = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: { name: 'Shop', env: 'production' },
    });
    expect(app.status, app.text).toBe(200);
    const { scanId } = await startScan(tenant.token, app.body.applicationId, { env: 'production' });
    await reportAlerts(tenant.token, scanId, [
      {
        pluginId: '10038',
        name: 'Content Security Policy Header Not Set',
        severity: 'Medium',
        uris: [{ uri: '/checkout', requestMethod: 'GET' }],
      },
    ]);
    await completeScan(tenant.token, scanId);

    await signIn(page, tenant.apiKey);
    await openSection(page, 'Issue trackers');
    await page.getByText('No tracker connected.').waitFor();

    await page.getByText('Connect a tracker').click();
    await page.getByLabel('Kind').selectOption({ label: 'GitHub' });
    await page.getByLabel('Name').fill('shop issues');
    await page.getByLabel('Repository').fill('acme/shop');
    await page.getByLabel('API URL (GitHub Enterprise Server only)').fill(github.baseUrl);
    await page.getByLabel('Token', { exact: true }).fill(token);
    await page.getByRole('button', { name: 'Connect' }).click();
    const row = page.getByRole('row').filter({ hasText: 'shop issues' });
    await expect.poll(() => row.innerText()).toMatch(/shop issues\s+GitHub\s+acme\/shop .*\s+by hand\s+1 scan/);
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(token);
    await expectAccessible(page, 'the issue trackers page with a connection');

    // The finding's page: promote it to the connection; the ticket shows once the background job made it.
    await page.getByRole('link', { name: 'Scans', exact: true }).click();
    await page.getByRole('heading', { name: 'Scans', level: 1 }).waitFor();
    await page.locator('tbody tr a').first().click();
    await page.getByRole('link', { name: 'Content Security Policy Header Not Set' }).click();
    await page.getByRole('link', { name: '/checkout' }).click();
    await page.getByRole('heading', { name: 'Finding at /checkout', level: 1 }).waitFor();
    const promote = page.getByRole('region', { name: 'Promote to an issue tracker' });
    await promote.getByLabel('Tracker').selectOption({ label: 'shop issues (acme/shop)' });
    await promote.getByLabel('Note').fill('fix before the release');
    await promote.getByRole('button', { name: 'Promote' }).click();
    await expect.poll(() => page.getByTestId('finding-status').innerText()).toMatch(/promoted/i);
    await expect
      .poll(async () => {
        await page.reload();
        await page.getByRole('heading', { name: 'Finding at /checkout', level: 1 }).waitFor();
        return page
          .getByTestId('finding-ticket')
          .innerText()
          .catch(() => '');
      })
      .toBe('acme/shop#1 open');
    expect(await page.getByTestId('finding-ticket').getByRole('link').getAttribute('href')).toBe(
      'https://github.example/acme/shop/issues/1',
    );
    expect(github.issues).toHaveLength(1);
    expect(github.issues[0]!.summary).toContain('Content Security Policy Header Not Set');
    expect(github.violations).toEqual([]);
    // Made once: the form is gone (a finding with a ticket keeps it).
    expect(await promote.count()).toBe(0);
    await expectAccessible(page, 'a finding with its ticket');

    // Disable, replace the token, remove.
    await openSection(page, 'Issue trackers');
    await row.getByRole('button', { name: 'Disable shop issues' }).click();
    await row.getByRole('button', { name: 'Enable shop issues' }).waitFor();
    const listed = await api('GET', `/api/v1/org/${tenant.orgId}/integrations/trackers`, { token: tenant.token });
    expect(listed.body.trackers).toMatchObject([{ name: 'shop issues', enabled: false }]);
    expect(listed.text).not.toContain(token);

    const replacement = `ghp_${crypto.randomUUID().replaceAll('-', '')}`;
    await row.getByLabel('New token').fill(replacement);
    await row.getByRole('button', { name: 'Replace token' }).click();
    const audit = async () =>
      (await api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: tenant.token })).body.auditRecords as {
        userActivityType: string;
        payload?: string;
      }[];
    // The settings change, the disabling and the token: the last one marked tokenReplaced (docs/TRACKERS.md).
    await expect
      .poll(async () => (await audit()).filter((r) => r.userActivityType === 'INTEGRATION_MODIFIED').length)
      .toBe(3);
    expect((await audit()).filter((r) => r.payload?.includes('"tokenReplaced":true'))).toHaveLength(1);
    expect(JSON.stringify(await audit())).not.toContain(replacement);

    await row.getByRole('button', { name: 'Remove shop issues' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove shop issues' }).click();
    await page.getByText('No tracker connected.').waitFor();
    // Its ticket stays on its finding.
    const alert = await api('GET', `/api/v1/scan/${scanId}/alert/10038`, { token: tenant.token });
    expect(alert.body.applicationScanAlertUris[0]).toMatchObject({ ticketKey: 'acme/shop#1', ticketStatus: 'OPEN' });
  });
});
