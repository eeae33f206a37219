import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { createApp } from '../integration/scan-helpers.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { launchBrowser, openSection, signIn } from './browser.ts';

// The dashboard's longer forms, in Chromium at a laptop's width: every field and checkbox on a line of its own or
// with room around it (none running into the next), each checkbox beside its words; the API-key form's application
// picker, device scopes, copy button and the members' key table that shows the new key at once; the organization's
// SLA policy, set on the same page.

vi.setConfig({ testTimeout: 240_000, expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
let appId: string;
const consoleErrors: string[] = [];

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant] = await Promise.all([launchBrowser(), createTenant()]);
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize({ width: 1440, height: 900 });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  appId = await createApp(tenant, { name: 'agent-shop', env: 'dev' });
  await signIn(page, tenant.apiKey);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/**
 * What is wrong with a form's layout as drawn: two labels whose boxes share a line with less than 8 px between them
 * (their words run together), or a checkbox that is not just left of its words on their line.
 */
async function layoutProblems(form: Locator): Promise<string[]> {
  return form.evaluate((root) => {
    const problems: string[] = [];
    const labels = [...root.querySelectorAll('label')].filter((l) => l.getClientRects().length > 0);
    const name = (l: Element) => JSON.stringify((l.textContent ?? '').trim().slice(0, 40));
    const boxes = labels.map((l) => l.getBoundingClientRect());
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i]!, boxes[j]!];
        const sameLine = a.top < b.bottom && b.top < a.bottom;
        const close = a.right + 8 > b.left && b.right + 8 > a.left;
        if (sameLine && close) problems.push(`${name(labels[i]!)} runs into ${name(labels[j]!)}`);
      }
    for (const label of labels) {
      const box = label.querySelector('input[type=checkbox]');
      if (!box) continue;
      const words = document.createRange();
      const textNode = [...label.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim());
      if (!textNode) continue;
      words.selectNodeContents(textNode);
      const [w, c] = [words.getBoundingClientRect(), box.getBoundingClientRect()];
      const centre = (c.top + c.bottom) / 2;
      if (!(c.right <= w.left && w.left - c.right < 16 && centre > w.top && centre < w.bottom))
        problems.push(`the checkbox of ${name(label)} is not just left of its words`);
    }
    return problems;
  });
}

/** Opens the disclosure with this summary, if it is not open already. */
async function open(summary: string): Promise<void> {
  const details = page.locator('details', { has: page.locator('summary', { hasText: summary }) }).first();
  if (!(await details.evaluate((d) => (d as HTMLDetailsElement).open)))
    await details.locator('summary').first().click();
}

describe('dashboard forms', () => {
  it('lays out the API-key, single sign-on and new-webhook forms field by field', async () => {
    await openSection(page, 'Settings');
    await open('New API key');
    const keyForm = page.locator('form', { has: page.getByRole('button', { name: 'Create key' }) });
    await keyForm.getByLabel('read:application').waitFor();
    expect(await layoutProblems(keyForm)).toEqual([]);

    const sso = page.locator('form', { has: page.getByRole('button', { name: 'Set up single sign-on' }) });
    await sso.getByLabel('Issuer URL').waitFor();
    expect(await layoutProblems(sso)).toEqual([]);

    await openSection(page, 'Integrations');
    await open('New webhook');
    const hookForm = page.locator('form', { has: page.getByRole('button', { name: 'Create webhook' }) });
    await hookForm.getByLabel('Scan started').waitFor();
    expect(await layoutProblems(hookForm)).toEqual([]);
  });

  it("sets the organization's SLA policy and its risk-acceptance default and maximum", async () => {
    await openSection(page, 'Settings');
    const form = page.locator('form', { has: page.getByRole('button', { name: 'Save SLA policy' }) });
    await form.getByLabel('High').waitFor();
    expect(await form.getByLabel('High').inputValue()).toBe('30'); // the defaults until one is set
    expect(await layoutProblems(form)).toEqual([]);
    await form.getByLabel('High').fill('7');
    await form.getByLabel('Medium').fill('30');
    await form.getByLabel('Low').fill('90');
    await form.getByLabel('Default length').fill('30');
    await form.getByLabel('Maximum length').fill('180');
    await form.getByRole('button', { name: 'Save SLA policy' }).click();
    await expect
      .poll(async () => (await api('GET', `/api/v1/org/${tenant.orgId}/sla`, { token: tenant.token })).body)
      .toMatchObject({
        configured: true,
        days: { High: 7, Medium: 30, Low: 90 },
        riskAcceptance: { defaultDays: 30, maxDays: 180 },
      });
    await expect.poll(() => form.getByLabel('Maximum length').inputValue()).toBe('180');
  });

  it("makes a key for an agent narrowed to one application, picked by name; copies it; lists it among the members' keys", async () => {
    await openSection(page, 'Settings');
    consoleErrors.length = 0;
    await open('New API key');
    const keyForm = page.locator('form', { has: page.getByRole('button', { name: 'Create key' }) });
    await keyForm.getByLabel('Name').fill('build agent');
    await keyForm.getByLabel('read:device').check();
    await keyForm.getByLabel('write:device').check();
    await keyForm.getByLabel('read:scan', { exact: true }).check();
    const application = keyForm.getByLabel('Only this application');
    await application.getByRole('option', { name: 'agent-shop' }).waitFor({ state: 'attached' });
    await application.selectOption({ label: 'agent-shop' });
    await keyForm.getByRole('button', { name: 'Create key' }).click();

    const apiKey = await page.getByTestId('new-api-key').innerText();
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiKey);

    const keys = await api('GET', '/api/v1/user/keys', { token: tenant.token });
    const made = keys.body.keys.find((k: { name: string }) => k.name === 'build agent');
    expect(made.applicationId).toBe(appId);
    expect([...made.permissions].sort()).toEqual(['read:device', 'read:scan', 'write:device']);
    // The members' table shows it at once, by its application's name, without a reload.
    const row = page
      .getByRole('region', { name: "Members' API keys" })
      .getByRole('row')
      .filter({ hasText: 'build agent' });
    await row.waitFor();
    expect(await row.innerText()).toContain('agent-shop');
    expect(consoleErrors, 'no invalid pattern or other console error').toEqual([]);
    // The key signs in.
    const login = await api('GET', '/api/v1/auth/login', { headers: { 'X-ApiKey': apiKey } });
    expect(login.status, login.text).toBe(200);
  });
});
