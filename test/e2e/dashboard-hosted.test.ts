import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { startAgent, type RunningAgent } from '@hawk-api/scanner/agent';
import { api, baseUrl } from '../integration/client.ts';
import { addUserTo, createTenant, type Tenant } from '../integration/fixtures.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, openSection, signIn as signInToOverview } from './browser.ts';
import { startVulnerableTarget, type VulnerableTarget } from './vulnerable-target.ts';

// Hosted scans on the dashboard, in a real Chromium against the local stack, with a scanner agent (the scanner
// package's, in process) running Debian's wapiti: a CLOUD application and its target's verification, "Scan now",
// the live state and phase, Stop, the run's log, and the scanner agents page.
vi.setConfig({ expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
let target: VulnerableTarget;
let agent: RunningAgent;
const stopAgent = new AbortController();

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant, target] = await Promise.all([launchBrowser(), createTenant(), startVulnerableTarget()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await allowScanDomain(tenant.orgId, '127.0.0.1');
  process.env.HAWK_WAPITI_ATTACK_SECONDS = '20';
  agent = await startAgent({
    url: baseUrl(),
    apiKey: tenant.apiKey,
    orgId: tenant.orgId,
    name: 'dashboard agent',
    signal: stopAgent.signal,
  });
}, 120_000);

afterAll(async () => {
  stopAgent.abort();
  await agent?.done;
  await browser?.close();
  await target?.stop();
});

async function signIn(p: Page, apiKey: string): Promise<void> {
  await signInToOverview(p, apiKey);
  await openSection(p, 'Applications');
}

const heading = (p: Page, name: string | RegExp) => p.getByRole('heading', { level: 1, name }).waitFor();
const state = (p: Page) => p.getByTestId('hosted-state').innerText();

describe('hosted scans on the dashboard', () => {
  it('creates a CLOUD application, shows its verification, scans it now, shows the live state, the log, and stops a scan', async () => {
    await signIn(page, tenant.apiKey);
    await page.getByText('New application').click();
    await page.getByLabel('Name', { exact: true }).fill('hosted shop');
    await page.getByLabel('First environment').fill('production');
    await page.getByLabel(/Hosted scan target/).fill(target.url);
    await page.getByRole('button', { name: 'Create application' }).click();
    await heading(page, 'hosted shop');
    const appId = page.url().split('/app/')[1]!;

    // The target: allowlisted for the organization, so verified.
    await page.getByRole('heading', { level: 2, name: 'Hosted scan target' }).waitFor();
    expect(await page.getByTestId('target-verified').innerText()).toBe('Yes');
    await page.getByRole('button', { name: 'Check the target now' }).click();
    await page.getByText('Verified (allowlist).').waitFor();
    await expectAccessible(page, 'CLOUD application');

    // The environment: Scan now, the state and phase as they change, the end, the log and the findings.
    await page.getByRole('link', { name: 'production' }).click();
    await heading(page, 'production');
    await page.getByText('No hosted scan yet.').waitFor();
    await page.getByRole('button', { name: 'Scan now' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Start the scan' }).click();
    await expect.poll(() => state(page)).toMatch(/^(Queued|Running)/);
    expect(await page.getByRole('button', { name: 'Scan now' }).isDisabled()).toBe(true);
    await expect
      .poll(() => page.getByTestId('hosted-phase').innerText(), { timeout: 60_000 })
      .toMatch(/attack|reporting|completed/);
    await expect.poll(() => state(page), { timeout: 180_000 }).toBe('Completed');
    await page.getByText("The run's log").click();
    const log = page.getByRole('region', { name: "The run's log" });
    expect(await log.innerText()).toMatch(/phase: attack[\s\S]*completed/);
    await expectAccessible(page, 'environment with a hosted scan');
    // The environment's last scan is the hosted one.
    await expect
      .poll(() => page.locator('section[aria-labelledby="last-scan"] .facts').innerText())
      .toContain('COMPLETED');
    await page.getByRole('link', { name: 'its findings' }).click();
    await heading(page, /^Scan of /);
    await page.getByRole('link', { name: 'Cross Site Scripting' }).waitFor();
    await page.goBack();
    await heading(page, 'production');

    // A slow target: the scan runs long enough to be stopped from the page.
    target.delayMs = 300;
    try {
      await page.getByRole('button', { name: 'Scan now' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Start the scan' }).click();
      await expect.poll(() => page.getByTestId('hosted-phase').innerText(), { timeout: 60_000 }).toBe('attack');
      await page.getByRole('button', { name: 'Stop the scan' }).click();
      await expect.poll(() => state(page)).toBe('Stopped');
      await expect.poll(() => page.getByRole('button', { name: 'Scan now' }).isDisabled()).toBe(false);
    } finally {
      target.delayMs = 0;
    }
    const status = await api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token });
    expect(status.body.device.status).toBe('HOSTED_SCANNER_DISCONNECTED');
  }, 400_000);

  it('shows the scanner agents with their status, and how to verify a target that is not verified', async () => {
    await signIn(page, tenant.apiKey);
    await page.getByRole('link', { name: 'Scanner agents' }).click();
    await heading(page, 'Scanner agents');
    const row = page.getByRole('row', { name: /dashboard agent/ });
    await expect.poll(() => row.innerText()).toMatch(/dashboard agent\s+Online\s+.+\s+wapiti\s+none\s+idle/);
    await expectAccessible(page, 'scanner agents');

    const created = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: {
        name: 'unverified',
        env: 'production',
        applicationType: 'CLOUD',
        cloudScanTargetURL: 'http://unverified.example.test/',
      },
    });
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/app/${created.body.applicationId}`);
    await heading(page, 'unverified');
    expect(await page.getByTestId('target-verified').innerText()).toBe('No');
    await page.getByRole('button', { name: 'Check the target now' }).click();
    const instructions = page.getByRole('status').filter({ hasText: 'Not verified' });
    await instructions.waitFor();
    expect(await instructions.innerText()).toContain('_hawk-verification.unverified.example.test');
    expect(await instructions.innerText()).toContain(
      'http://unverified.example.test/.well-known/hawk-verification.txt',
    );
    expect(await instructions.innerText()).toMatch(/hawk-verification=[0-9a-f]{32}/);
    await expectAccessible(page, 'unverified target');
  }, 120_000);

  it('offers Scan now only to those who may start scans', async () => {
    const reader = await addUserTo(tenant.orgId, ['read:application', 'read:scan', 'read:device']);
    const apps = await api('GET', `/api/v2/org/${tenant.orgId}/apps`, {
      token: tenant.token,
      query: { applicationTypes: 'CLOUD', query: 'hosted shop' },
    });
    const appId = apps.body.applications[0].applicationId as string;
    const envs = await api('GET', `/api/v1/app/${appId}/env/list`, { token: tenant.token });
    const envId = envs.body.environments[0].environmentId as string;
    await signIn(page, reader.apiKey);
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/app/${appId}/env/${envId}`);
    await heading(page, 'production');
    await expect.poll(() => state(page)).toBe('Stopped');
    expect(await page.getByRole('button', { name: 'Scan now' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Stop the scan' }).count()).toBe(0);
  }, 120_000);
});
