import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { startAgent, type RunningAgent } from '@hawk-api/scanner/agent';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { allowScanDomain } from '../../shared/perch/allowlist.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser } from './browser.ts';
import { startSpaTarget, type Target } from '../../scanner/test/profile-targets.ts';

// Profile scans on the dashboard (docs/PROFILE-SCANS.md), in a real Chromium against the local stack, with a scanner
// agent in process: "Profile this target" on a CLOUD application, the latest result and the earlier ones.
vi.setConfig({ expect: { poll: { timeout: 15_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
let target: Target;
let agent: RunningAgent;
const stopAgent = new AbortController();

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant, target] = await Promise.all([launchBrowser(), createTenant(), startSpaTarget()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await allowScanDomain(tenant.orgId, '127.0.0.1');
  agent = await startAgent({
    url: baseUrl(),
    apiKey: tenant.apiKey,
    orgId: tenant.orgId,
    name: 'profile agent',
    engines: [],
    signal: stopAgent.signal,
  });
}, 120_000);

afterAll(async () => {
  stopAgent.abort();
  await agent?.done;
  await browser?.close();
  await target?.close();
});

describe('profile scans on the dashboard', () => {
  it('profiles a CLOUD application from its page and shows the result, its configuration and the earlier profiles', async () => {
    const created = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: { name: 'spa shop', env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: target.url },
    });
    expect(created.status, created.text).toBe(200);
    const appId = created.body.applicationId as string;

    await page.goto(`${baseUrl()}/`);
    await page.getByLabel('API key').fill(tenant.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor(); // the landing page
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/app/${appId}`);
    await page.getByRole('heading', { level: 2, name: 'Profile' }).waitFor();
    await page.getByText('No profile yet.').waitFor();

    await page.getByRole('button', { name: 'Profile this target' }).click();
    await expect
      .poll(() => page.getByTestId('profile-classification').innerText())
      .toBe('Single-page app with a login');
    const configuration = await page.getByRole('region', { name: 'Suggested configuration' }).innerText();
    expect(configuration).toContain(`applicationId: ${appId}`);
    expect(configuration).toContain('loginPath: /api/auth/login');
    expect(configuration).toContain('scanPassword: ${SCAN_PASSWORD}');
    await page.getByRole('cell', { name: 'AUTH_PROTECTED_ENDPOINT' }).waitFor();
    await expectAccessible(page, 'profile result');

    // A second profile: the first moves to the earlier ones.
    await page.getByRole('button', { name: 'Profile this target' }).click();
    await page.getByRole('list', { name: 'Earlier profiles' }).getByRole('listitem').first().waitFor();
    const results = await api('GET', `/api/v1/app/${appId}/profile/results/list`, { token: tenant.token });
    expect(results.body.profileScanResults).toHaveLength(2);
  });
});
