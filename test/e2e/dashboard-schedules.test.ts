import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { api, baseUrl } from '../integration/client.ts';
import { addUserTo, createTenant, type Tenant } from '../integration/fixtures.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, signIn } from './browser.ts';

// Scan schedules and agent labels on the dashboard, in a real Chromium against the local stack
// (docs/HOSTED-SCANS.md, Schedules; Agent pools): an environment's schedules listed with their next run, added,
// edited, paused, resumed and removed; the agent labels an application requires, and each agent's labels.
vi.setConfig({ expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
let appId: string;
let productionId: string;

interface Schedule {
  id: string;
  env: string;
  cron: string;
  timezone: string;
  enabled: boolean;
  nextRunAt: string;
}

const schedules = async (): Promise<Schedule[]> =>
  (await api('GET', `/api/v1/app/${appId}/schedules`, { token: tenant.token })).body.schedules;

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant] = await Promise.all([launchBrowser(), createTenant()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  const app = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
    token: tenant.token,
    body: {
      name: 'scheduled shop',
      env: 'production',
      applicationType: 'CLOUD',
      cloudScanTargetURL: 'http://scheduled.example.test/',
    },
  });
  expect(app.status, app.text).toBe(200);
  appId = app.body.applicationId;
  const envs = await api('GET', `/api/v1/app/${appId}/env/list`, { token: tenant.token });
  productionId = envs.body.environments[0].environmentId;
  expect(
    (await api('POST', `/api/v1/app/${appId}/env`, { token: tenant.token, body: { env: 'staging' } })).status,
  ).toBe(200);
  // Another environment's schedule is not this environment's.
  const staging = await api('POST', `/api/v1/app/${appId}/schedules`, {
    token: tenant.token,
    body: { env: 'staging', cron: '0 1 * * *', timezone: 'UTC' },
  });
  expect(staging.status, staging.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

const environmentPage = async () => {
  await page.goto(`${baseUrl()}/org/${tenant.orgId}/app/${appId}/env/${productionId}`);
  await page.getByRole('heading', { level: 1, name: 'production' }).waitFor();
  await page.getByRole('heading', { level: 2, name: 'Scan schedules' }).waitFor();
};
const section = () => page.locator('section', { has: page.getByRole('heading', { name: 'Scan schedules' }) });

describe('scan schedules on the environment page', () => {
  it('adds a schedule, shows its next run, refuses a bad expression naming it, edits, pauses, resumes and removes it', async () => {
    await signIn(page, tenant.apiKey);
    await environmentPage();
    await page.getByText('No scan schedule for this environment.').waitFor();

    await page.getByText('Add a schedule').click();
    const form = section().locator('form');
    await form.getByLabel(/^Times/).fill('61 3 * * *');
    await form.getByLabel(/^Time zone/).fill('Europe/Paris');
    await form.getByRole('button', { name: 'Add schedule' }).click();
    await expect.poll(() => form.getByRole('alert').innerText()).toMatch(/^cron: /);
    expect((await schedules()).filter((s) => s.env === 'production')).toEqual([]);

    await form.getByLabel(/^Times/).fill('0 3 * * *');
    await form.getByRole('button', { name: 'Add schedule' }).click();
    const row = section().getByRole('row').filter({ hasText: '0 3 * * *' });
    await row.waitFor();
    const [created] = (await schedules()).filter((s) => s.env === 'production');
    expect(created).toMatchObject({ cron: '0 3 * * *', timezone: 'Europe/Paris', enabled: true });
    expect(created.nextRunAt).not.toBe('');
    const shownNext = await row.getByTestId('schedule-next').innerText();
    expect(shownNext).toBe(await page.evaluate((iso) => new Date(iso).toLocaleString(), created.nextRunAt));
    expect(await section().getByRole('row').filter({ hasText: '0 1 * * *' }).count()).toBe(0);
    await expectAccessible(page, 'environment with a schedule');

    await row.getByRole('button', { name: 'Edit schedule 0 3 * * *' }).click();
    const editor = page.getByRole('group', { name: 'Edit schedule 0 3 * * *' });
    await editor.getByLabel(/^Times/).fill('15 4 * * 1-5');
    await editor.getByLabel(/^Time zone/).fill('America/New_York');
    await editor.getByRole('button', { name: 'Save schedule' }).click();
    const edited = section().getByRole('row').filter({ hasText: '15 4 * * 1-5' });
    await edited.waitFor();
    expect(await edited.innerText()).toContain('America/New_York');
    expect((await schedules()).find((s) => s.id === created.id)).toMatchObject({
      cron: '15 4 * * 1-5',
      timezone: 'America/New_York',
      enabled: true,
    });

    await edited.getByRole('button', { name: 'Pause schedule 15 4 * * 1-5' }).click();
    await expect.poll(() => edited.getByTestId('schedule-next').innerText()).toBe('Paused');
    expect((await schedules()).find((s) => s.id === created.id)).toMatchObject({ enabled: false, nextRunAt: '' });
    await edited.getByRole('button', { name: 'Resume schedule 15 4 * * 1-5' }).click();
    await expect.poll(() => edited.getByTestId('schedule-next').innerText()).not.toBe('Paused');
    expect((await schedules()).find((s) => s.id === created.id)).toMatchObject({ enabled: true });

    await edited.getByRole('button', { name: 'Remove schedule 15 4 * * 1-5' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove schedule 15 4 * * 1-5' }).click();
    await page.getByText('No scan schedule for this environment.').waitFor();
    expect((await schedules()).map((s) => s.env)).toEqual(['staging']);
  }, 120_000);

  it('shows a reader the schedules without the means to change them', async () => {
    const created = await api('POST', `/api/v1/app/${appId}/schedules`, {
      token: tenant.token,
      body: { env: 'production', cron: '30 2 * * *', timezone: 'UTC', enabled: false },
    });
    expect(created.status, created.text).toBe(200);
    const reader = await addUserTo(tenant.orgId, ['read:application', 'read:scan', 'read:device']);
    await signIn(page, reader.apiKey);
    await environmentPage();
    const row = section().getByRole('row').filter({ hasText: '30 2 * * *' });
    await row.waitFor();
    expect(await row.getByTestId('schedule-next').innerText()).toBe('Paused');
    expect(await section().getByRole('button').count()).toBe(0);
    expect(await page.getByText('Add a schedule').count()).toBe(0);
  }, 120_000);
});

describe('agent labels on the dashboard', () => {
  it("saves the labels an application requires, shows the service's refusal, a scan waiting for them, and each agent's labels", async () => {
    const device = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, {
      token: tenant.token,
      body: { name: 'public agent', labels: ['region=eu', 'net=public'] },
    });
    expect(device.status, device.text).toBe(200);
    await signIn(page, tenant.apiKey);
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/app/${appId}`);
    await page.getByRole('heading', { level: 1, name: 'scheduled shop' }).waitFor();
    await page
      .getByTestId('required-labels')
      .getByText(/Any scanner agent/)
      .waitFor();
    const labels = page.getByLabel(/^Required agent labels/);
    await labels.fill('net internal');
    await page.getByRole('button', { name: 'Save required labels' }).click();
    await expect.poll(() => page.getByRole('alert').first().innerText()).toMatch(/requiredLabels\.0: must be a label/);
    await labels.fill('net=internal, region=eu');
    await page.getByRole('button', { name: 'Save required labels' }).click();
    await expect
      .poll(() => page.getByTestId('required-labels').innerText())
      .toMatch(/only to agents with the labels net=internal, region=eu/);
    expect((await api('GET', `/api/v1/app/${appId}/perch/settings`, { token: tenant.token })).body).toEqual({
      requiredLabels: ['net=internal', 'region=eu'],
    });
    await expectAccessible(page, 'application with required labels');

    // A scan of it waits, and its environment's hosted scan section says for what.
    await allowScanDomain(tenant.orgId, 'scheduled.example.test');
    const started = await api('POST', `/api/v1/app/${appId}/perch/start`, {
      token: tenant.token,
      body: { command: { command: 'START' }, env: 'production' },
    });
    expect(started.status, started.text).toBe(200);
    await environmentPage();
    await expect
      .poll(() => page.getByTestId('hosted-phase').innerText())
      .toBe('queued: waiting for an agent with the labels net=internal, region=eu (no online agent has them)');

    await page.goto(`${baseUrl()}/org/${tenant.orgId}/app/${appId}`);
    await page.getByTestId('required-labels').getByRole('link', { name: 'Scanner agents' }).click();
    const agentRow = page.getByRole('row').filter({ hasText: 'public agent' });
    await agentRow.waitFor();
    expect(await agentRow.innerText()).toContain('net=public, region=eu');
    await expectAccessible(page, 'scanner agents with labels');
  }, 120_000);
});
