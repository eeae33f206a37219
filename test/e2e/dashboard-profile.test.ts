import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { startAgent, type RunningAgent } from '@hawk-api/scanner/agent';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser } from './browser.ts';
import {
  API_DESCRIPTION_PATH,
  startApiTarget,
  startSpaTarget,
  type Target,
} from '../../scanner/test/profile-targets.ts';

// Profile scans on the dashboard (docs/PROFILE-SCANS.md), in a real Chromium against the local stack, with a scanner
// agent in process: "Profile this target" on a CLOUD application, the latest result and the earlier ones, "Use as
// hosted description" for a valid discovered description (and the validation errors of an invalid one), and "Save
// as the environment's configuration".
vi.setConfig({ expect: { poll: { timeout: 15_000 } } });
/** How long a test waits for a profile to end (DEFAULT_BUDGET allows a profile 60 s). */
const PROFILE_MS = 90_000;

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
let target: Target;
let apiTarget: Target;
let invalidApiTarget: Target;
/** The single-page app the first test profiles (twice); the next saves its suggested configuration. */
let spaAppId: string;
let agent: RunningAgent;
const stopAgent = new AbortController();

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant, target, apiTarget, invalidApiTarget] = await Promise.all([
    launchBrowser(),
    createTenant(),
    startSpaTarget(),
    startApiTarget({ validDescription: true }),
    startApiTarget(),
  ]);
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
  await apiTarget?.close();
  await invalidApiTarget?.close();
});

/** Waits for the save's status, or fails with the message the page shows instead. */
async function savedOrRefused(status: string) {
  const saved = page.getByText(status);
  const refused = page.locator('main [role=alert]');
  await saved.or(refused).first().waitFor({ timeout: 60_000 });
  expect(await refused.allInnerTexts()).toEqual([]);
  expect(await saved.count()).toBe(1);
}

/**
 * The latest profile's API description line, once a profile of an application without one has ended: a profile
 * sends up to 150 requests 50 ms apart, which on a loaded 2-core machine took more than a plain wait's 30 s (CI).
 */
async function profileDescription() {
  const description = page.getByTestId('profile-description');
  await description.waitFor({ timeout: PROFILE_MS });
  return description;
}

async function cloudApp(name: string, url: string) {
  const created = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
    token: tenant.token,
    body: { name, env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: url },
  });
  expect(created.status, created.text).toBe(200);
  return created.body.applicationId as string;
}

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
    expect(configuration).toContain('scanPassword: ${HAWK_SCAN_PASSWORD}');
    await page.getByRole('cell', { name: 'AUTH_PROTECTED_ENDPOINT' }).waitFor();
    await expectAccessible(page, 'profile result');

    // A second profile: the first moves to the earlier ones.
    await page.getByRole('button', { name: 'Profile this target' }).click();
    await page.getByRole('list', { name: 'Earlier profiles' }).getByRole('listitem').first().waitFor();
    const results = await api('GET', `/api/v1/app/${appId}/profile/results/list`, { token: tenant.token });
    expect(results.body.profileScanResults).toHaveLength(2);
    spaAppId = appId;
  }, 120_000);

  it("saves the suggested configuration as the chosen environment's, asking before it replaces one", async () => {
    const appId = spaAppId;
    // The environment chosen, then a confirmation to replace the configuration of that name.
    const staging = await api('POST', `/api/v1/app/${appId}/env`, { token: tenant.token, body: { env: 'staging' } });
    expect(staging.status, staging.text).toBe(200);
    await page.reload();
    const save = page.getByRole('form', { name: "Save as the environment's configuration" });
    await save.getByLabel('Environment').selectOption('staging');
    await expect.poll(() => save.getByLabel('Configuration name').inputValue()).toBe('spa-shop-staging');
    // Whether one of that name exists is asked without a console error (a 404 is one).
    const errors: string[] = [];
    const onConsole = (m: { type: () => string; text: () => string }) => {
      if (m.type() === 'error') errors.push(m.text());
    };
    page.on('console', onConsole);
    await save.getByRole('button', { name: "Save as the environment's configuration" }).click();
    await savedOrRefused('Saved as the scan configuration spa-shop-staging (environment staging).');
    page.off('console', onConsole);
    expect(errors).toEqual([]);
    const stored = async () => {
      const asset = await api('GET', `/api/v1/configuration/${tenant.orgId}/spa-shop-staging`, {
        token: tenant.token,
        query: { redirect: 'false' },
      });
      expect(asset.status, asset.text).toBe(200);
      return (await fetch(asset.body.presignedDownloadUrl)).text();
    };
    const saved = await stored();
    expect(saved).toContain('env: "staging"');
    expect(saved).toContain(`applicationId: ${appId}`);
    expect(saved).toContain('scanPassword: ${HAWK_SCAN_PASSWORD}');

    // Saving again under that name asks first: Cancel keeps it, "Replace it" replaces it.
    await save.getByLabel('Environment').selectOption('production');
    await save.getByLabel('Configuration name').fill('spa-shop-staging');
    await save.getByRole('button', { name: "Save as the environment's configuration" }).click();
    const dialog = page.getByRole('dialog', { name: 'Replace the scan configuration spa-shop-staging?' });
    await dialog.waitFor();
    await expectAccessible(page, 'replace configuration dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await stored()).toContain('env: "staging"');
    await save.getByRole('button', { name: "Save as the environment's configuration" }).click();
    await dialog.getByRole('button', { name: 'Replace it' }).click();
    await savedOrRefused('Saved as the scan configuration spa-shop-staging (environment production).');
    expect(await stored()).toContain('env: "production"');
  }, 120_000);

  it('makes a valid discovered description the hosted one, and shows why an invalid one cannot be', async () => {
    const appId = await cloudApp('orders api', apiTarget.url);
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/app/${appId}`);
    await page.getByRole('button', { name: 'Profile this target' }).click();
    const valid = await profileDescription();
    await expect.poll(() => valid.innerText()).toBe(`${API_DESCRIPTION_PATH} (valid)`);
    expect((await api('GET', `/api/v1/oas/${tenant.orgId}/${appId}`, { token: tenant.token })).status).toBe(404);
    await page.getByRole('button', { name: 'Use as hosted description' }).click();
    await page
      .getByText(`${API_DESCRIPTION_PATH} is now the application's hosted API description (OpenAPI 3.0.3,`)
      .waitFor();
    expect((await api('GET', `/api/v1/oas/${tenant.orgId}/${appId}`, { token: tenant.token })).status).toBe(200);

    const invalidId = await cloudApp('orders api draft', invalidApiTarget.url);
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/app/${invalidId}`);
    await page.getByRole('button', { name: 'Profile this target' }).click();
    const invalid = await profileDescription();
    await expect.poll(() => invalid.innerText()).toBe(`${API_DESCRIPTION_PATH} (not valid)`);
    const why = page.getByRole('note', { name: 'Why the API description cannot be hosted as it is' });
    expect(await why.getByRole('listitem').allInnerTexts()).toEqual([
      '`/paths/api/orders/{id}/get` is missing path parameter(s) for `{id}`.',
    ]);
    expect(await page.getByRole('button', { name: 'Use as hosted description' }).count()).toBe(0);
    await expectAccessible(page, 'invalid description');
  }, 240_000);
});
