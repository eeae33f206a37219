import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { api, baseUrl } from '../integration/client.ts';
import { addUserTo, createTenant, type Tenant } from '../integration/fixtures.ts';
import { permissionsOfRole } from '../../shared/context/roles.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, signIn } from './browser.ts';

// The application page's "Scan secrets" section (docs/HOSTED-SCANS.md, "Scan secrets"), in a real Chromium against
// the local stack: write-only. Names and times are listed, a value is set and replaced from a password field and
// never appears on the page or in what the page reads; a secret is deleted; a read-only member only sees the names.
vi.setConfig({ expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let owner: Tenant;

beforeAll(async () => {
  await ensureWebBuild();
  [browser, owner] = await Promise.all([launchBrowser(), createTenant()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** Every answer the page reads from the API while `work` runs, as text. */
async function answersDuring(p: Page, work: () => Promise<void>): Promise<string[]> {
  const bodies: Promise<string>[] = [];
  const seen = (response: import('playwright-core').Response) => {
    if (response.url().includes('/api/')) bodies.push(response.text().catch(() => ''));
  };
  p.on('response', seen);
  try {
    await work();
  } finally {
    p.off('response', seen);
  }
  return Promise.all(bodies);
}

const secretsSection = (p: Page) => p.getByRole('region', { name: 'Scan secrets' });

describe("the application's scan secrets on the dashboard", () => {
  it('sets, lists by name, replaces and deletes a secret, never showing its value; a read-only member only lists', async () => {
    const created = await api('POST', `/api/v1/org/${owner.orgId}/app`, {
      token: owner.token,
      body: { name: 'secret shop', env: 'production' },
    });
    const appId = created.body.applicationId as string;
    const appPage = `${baseUrl()}/org/${owner.orgId}/app/${appId}`;
    const value = `dashboard-pass-${crypto.randomUUID()}`;
    const replacement = `replaced-pass-${crypto.randomUUID()}`;

    await signIn(page, owner.apiKey);
    const answers = await answersDuring(page, async () => {
      await page.goto(appPage);
      await page.getByRole('heading', { level: 1, name: 'secret shop' }).waitFor();
      const section = secretsSection(page);
      await section.getByText('No scan secrets yet.').waitFor();
      await section.getByLabel('Secret name').fill('SHOP_PASSWORD');
      const field = section.getByLabel('Value');
      expect(await field.getAttribute('type')).toBe('password');
      await field.fill(value);
      await section.getByRole('button', { name: 'Set secret' }).click();
      await section.getByRole('rowheader', { name: 'SHOP_PASSWORD' }).waitFor();
      // The form is emptied once sent: the value is not kept on the page.
      expect(await field.inputValue()).toBe('');
      await expectAccessible(page, 'scan secrets');

      // Set again under the same name: replaced, still one row.
      await section.getByLabel('Secret name').fill('SHOP_PASSWORD');
      await field.fill(replacement);
      await section.getByRole('button', { name: 'Set secret' }).click();
      // Sent and answered once the form is emptied: filling it sooner races the form's reset after the answer.
      await expect.poll(() => field.inputValue()).toBe('');
      await expect.poll(() => section.getByRole('rowheader').count()).toBe(1);
      // A bad name: the service's message, nothing stored.
      await section.getByLabel('Secret name').evaluate((input) => input.removeAttribute('pattern'));
      await section.getByLabel('Secret name').fill('1-bad');
      await field.fill('x');
      await section.getByRole('button', { name: 'Set secret' }).click();
      await section.getByRole('alert').waitFor();
      expect(await section.getByRole('rowheader').count()).toBe(1);
    });
    for (const answer of answers) {
      expect(answer).not.toContain(value);
      expect(answer).not.toContain(replacement);
    }
    expect(await page.content()).not.toContain(replacement);

    const reader = { orgId: owner.orgId, ...(await addUserTo(owner.orgId, permissionsOfRole('READ_ONLY'))) };
    await signIn(page, reader.apiKey);
    await page.goto(appPage);
    const section = secretsSection(page);
    await section.getByRole('rowheader', { name: 'SHOP_PASSWORD' }).waitFor();
    expect(await section.getByRole('button', { name: 'Set secret' }).count()).toBe(0);
    expect(await section.getByRole('button', { name: /Delete the secret/ }).count()).toBe(0);

    await signIn(page, owner.apiKey);
    await page.goto(appPage);
    await secretsSection(page).getByRole('button', { name: 'Delete the secret SHOP_PASSWORD' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete the secret SHOP_PASSWORD' }).click();
    await secretsSection(page).getByText('No scan secrets yet.').waitFor();
    const listed = await api('GET', `/api/v1/app/${appId}/secrets`, { token: owner.token });
    expect(listed.body.secrets).toEqual([]);
  });
});
