import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { startAgent, type RunningAgent } from '@hawk-api/scanner/agent';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, signIn } from './browser.ts';
import { cloudAppAt, passwordLoginTarget } from './hosted-helpers.ts';

// "Scan now" with a configuration (docs/HOSTED-SCANS.md, Dashboard), in a real Chromium against the local stack with
// a scanner agent in process running wapiti: the choice lists the environment's default configuration, the
// organization's scan configurations (the one saved for the environment chosen first) and none; the run logs in with
// the chosen one's password (moved into the organization's secrets when it was saved), and the environment's page,
// the run's log and the scan page name the configuration that ran.
vi.setConfig({ expect: { poll: { timeout: 15_000 } } });

const PASSWORD = `scan-now-${crypto.randomUUID()}`;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
let target: Awaited<ReturnType<typeof passwordLoginTarget>>;
let agent: RunningAgent;
const stopAgent = new AbortController();

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant, target] = await Promise.all([launchBrowser(), createTenant(), passwordLoginTarget(PASSWORD)]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  process.env.HAWK_WAPITI_ATTACK_SECONDS = '5';
  agent = await startAgent({
    url: baseUrl(),
    apiKey: tenant.apiKey,
    orgId: tenant.orgId,
    name: 'scan-now agent',
    signal: stopAgent.signal,
  });
}, 120_000);

afterAll(async () => {
  stopAgent.abort();
  await agent?.done;
  await browser?.close();
  await target?.close();
});

const loginConfig = (host: string) => `app:
  env: production
  host: ${host}
  authentication:
    usernamePassword:
      type: FORM
      loginPath: /login
      usernameField: username
      passwordField: password
      scanUsername: alice
      scanPassword: ${PASSWORD}
    cookieAuthorization:
      cookieNames: [sid]
    testPath:
      path: /account
      type: BODY
      success: "Signed in as"
`;

const state = (p: Page) => p.getByTestId('hosted-state').innerText();
/** The run's log, as the page holds it (its section is folded unless the run failed). */
const runLog = async (p: Page) => (await p.locator('pre[aria-label="The run\'s log"]').textContent()) ?? '';

/** Scan now with the option labelled `choice` (the one chosen first when undefined), to the run's end. */
async function scanNowWith(p: Page, choice?: string): Promise<void> {
  await p.getByRole('button', { name: 'Scan now' }).click();
  const dialog = p.getByRole('dialog', { name: 'Scan production now' });
  if (choice) await dialog.getByLabel(choice).check();
  await dialog.getByRole('button', { name: 'Start the scan' }).click();
  await expect.poll(() => state(p)).toMatch(/^(Queued|Running)/);
  await expect.poll(() => state(p), { timeout: 120_000 }).toBe('Completed');
}

describe('"Scan now" with a configuration', () => {
  it('offers the saved configurations, scans with the chosen one, and names it on the run and the scan', async () => {
    const appId = await cloudAppAt(tenant, 'shop', target.url);
    for (const [name, conf] of [
      ['shop-production', loginConfig(target.url)],
      ['other', `app:\n  env: production\n  host: ${target.url}\n`],
    ]) {
      const saved = await api('POST', `/api/v1/configuration/${tenant.orgId}/update`, {
        token: tenant.token,
        body: { name, conf },
      });
      expect(saved.status, saved.text).toBe(200);
    }
    const envs = await api('GET', `/api/v1/app/${appId}/env/list`, { token: tenant.token });
    const envId = envs.body.environments[0].environmentId as string;

    await signIn(page, tenant.apiKey);
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/app/${appId}/env/${envId}`);
    await page.getByRole('heading', { level: 1, name: 'production' }).waitFor();
    await page.getByRole('button', { name: 'Scan now' }).click();
    const dialog = page.getByRole('dialog', { name: 'Scan production now' });
    await dialog.getByLabel('Scan configuration shop-production (saved for this environment)').waitFor();
    expect(
      await dialog.getByRole('radio').evaluateAll((radios) => radios.map((r) => r.parentElement!.textContent!.trim())),
    ).toEqual([
      'The default configuration of environment production',
      'Scan configuration other',
      'Scan configuration shop-production (saved for this environment)',
      'None: the target URL only, without logging in',
    ]);
    expect(await dialog.getByLabel(/shop-production/).isChecked()).toBe(true);
    await expectAccessible(page, 'scan now choice');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByText('No hosted scan yet.').count()).toBe(1);

    await scanNowWith(page);
    const configuration = 'the organization scan configuration shop-production';
    expect(await page.getByTestId('hosted-configuration').innerText()).toBe(configuration);
    expect(await runLog(page)).toContain(`configuration: ${configuration}`);
    expect(await runLog(page)).toContain('login ok');
    expect(await runLog(page)).not.toContain(PASSWORD);
    expect(target.logins).toContain(`username=alice&password=${PASSWORD}`);
    await page.getByRole('link', { name: 'its findings' }).click();
    await page.getByRole('heading', { level: 1, name: /^Scan of / }).waitFor();
    expect(await page.getByTestId('scan-configuration').innerText()).toBe(configuration);
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'production' }).waitFor();

    const logins = target.logins.length;
    await scanNowWith(page, 'None: the target URL only, without logging in');
    expect(await page.getByTestId('hosted-configuration').innerText()).toBe('none: the target URL only');
    expect(await runLog(page)).toContain('no app.authentication: scanning without logging in');
    expect(target.logins.length).toBe(logins);
  }, 400_000);
});
