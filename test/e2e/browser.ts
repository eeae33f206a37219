import type { Page, Response } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'vitest';
import { baseUrl } from '../integration/client.ts';

export { launchBrowser } from '../../scripts/local/chromium.ts';
/** axe-core on the page as it is now: no serious or critical WCAG violations. */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    serious.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    `axe on ${label}`,
  ).toEqual([]);
}

/**
 * Signs in with an API key afresh (a session left by an earlier test is dropped first) and waits for the landing
 * page, the overview. When it does not come, the error gives the page's text and the requests refused meanwhile.
 */
export async function signIn(p: Page, apiKey: string): Promise<void> {
  await p.goto(`${baseUrl()}/`);
  await p.evaluate(() => sessionStorage.clear());
  await p.goto(`${baseUrl()}/`); // not reload(): a session still open may have moved on to its organization's page
  await p.getByLabel('API key').fill(apiKey);
  const refused: string[] = [];
  const onResponse = async (r: Response) => {
    if (r.status() === 401)
      refused.push(
        `${r.request().method()} ${r.url()} ${r.request().headers().authorization?.slice(0, 40)}: ${await r.text().catch(() => '')}`,
      );
  };
  p.on('response', onResponse);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p
    .getByRole('heading', { name: 'Overview', level: 1 })
    .waitFor()
    .catch(async (error) => {
      throw new Error(
        `signed in, but no overview at ${p.url()}; 401s: ${refused.join(' | ')}; the page says: ${await p.locator('body').innerText()}`,
        { cause: error },
      );
    })
    .finally(() => p.off('response', onResponse));
}

/** Opens a section of the dashboard from its navigation and waits for its heading. */
export async function openSection(p: Page, name: string): Promise<void> {
  await p.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();
  await p.getByRole('heading', { name, level: 1 }).waitFor();
}
