import type { Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'vitest';

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
