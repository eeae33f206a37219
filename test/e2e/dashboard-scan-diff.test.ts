import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { createApp, pluginAlert, scanOnce } from '../integration/scan-helpers.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, signIn } from './browser.ts';

// What changed on the dashboard's scan page (getScanDiff; docs/DATA-MODEL.md, Scan diffs), in Chromium: new
// findings first, then regressed and fixed ones, each list what the diff operation answers. The new
// finding is Low and the others High, so a page that ordered by severity, or by the answer's key order, fails.

vi.setConfig({ testTimeout: 240_000, expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
/** Three scans of one environment's HawkScan stream. */
const scans: string[] = [];
/** The first scan of another environment: 52 findings, all new. */
let manyNew: string;

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant] = await Promise.all([launchBrowser(), createTenant()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize({ width: 1440, height: 900 });
  const appId = await createApp(tenant, { name: 'diff-shop', env: 'dev' });
  const search = pluginAlert('40012', 'High', ['/search']);
  const account = pluginAlert('10021', 'Medium', ['/account']);
  const login = pluginAlert('40018', 'High', ['/login']);
  const about = pluginAlert('10038', 'Low', ['/about']);
  // /search fixed by the second scan and back in the third (regressed); /login fixed by the third; /about new.
  for (const alerts of [
    [search, account],
    [account, login],
    [search, account, about],
  ])
    scans.push((await scanOnce(tenant.token, appId, alerts)).scanId);
  const pages = Array.from({ length: 52 }, (_, i) => `/page-${String(i).padStart(2, '0')}`);
  manyNew = (await scanOnce(tenant.token, appId, [pluginAlert('10202', 'Medium', pages)], 'prod')).scanId;
  await signIn(page, tenant.apiKey);
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

/** The scan page's change lists, in page order: each list's kind, heading and entries' text. */
async function changeLists(scanId: string) {
  await page.goto(`${baseUrl()}/org/${tenant.orgId}/scan/${scanId}`);
  const section = page.getByTestId('scan-changes');
  await expect.poll(() => section.getByTestId('scan-changes-against').count()).toBe(1);
  return section.locator('ul.rows').evaluateAll((lists) =>
    lists.map((list) => ({
      kind: list.getAttribute('data-testid'),
      heading: list.previousElementSibling?.textContent?.trim(),
      entries: [...list.querySelectorAll('li')].map((li) => li.textContent?.replace(/\s+/g, ' ').trim()),
    })),
  );
}

describe("the scan page's diff", () => {
  it('lists the new findings first, then regressed and fixed ones, as the diff operation answers them', async () => {
    const diff = await api('GET', `/api/v1/scan/${scans[2]}/diff`, { token: tenant.token });
    expect(diff.status, diff.text).toBe(200);
    const uris = (kind: string) => diff.body[kind].map((f: { uri: string }) => f.uri);
    expect([uris('new'), uris('regressed'), uris('fixed'), uris('unchanged')]).toEqual([
      ['/about'],
      ['/search'],
      ['/login'],
      ['/account'],
    ]);

    const lists = await changeLists(scans[2]);
    expect(await page.getByTestId('scan-changes-against').innerText()).toBe(
      'Against the previous scan of the same tool: 1 new, 1 regressed, 1 fixed, 1 unchanged.',
    );
    expect(lists).toEqual([
      { kind: 'scan-changes-new', heading: 'New (1)', entries: ['Low Plugin 10038 GET /about · id'] },
      { kind: 'scan-changes-regressed', heading: 'Regressed (1)', entries: ['High Plugin 40012 GET /search · id'] },
      { kind: 'scan-changes-fixed', heading: 'Fixed (1)', entries: ['High Plugin 40018 GET /login · id'] },
    ]);
    // The previous scan is the one compared with.
    expect(
      await page.getByTestId('scan-changes-against').getByRole('link', { name: 'previous scan' }).getAttribute('href'),
    ).toBe(`/org/${tenant.orgId}/scan/${scans[1]}`);
    await expectAccessible(page, 'scan page with its changes');
  });

  it('leaves out a kind with nothing in it, keeping new first', async () => {
    expect(await changeLists(scans[1])).toEqual([
      { kind: 'scan-changes-new', heading: 'New (1)', entries: ['High Plugin 40018 GET /login · id'] },
      { kind: 'scan-changes-fixed', heading: 'Fixed (1)', entries: ['High Plugin 40012 GET /search · id'] },
    ]);
    expect(await page.getByTestId('scan-changes-against').innerText()).toBe(
      'Against the previous scan of the same tool: 1 new, 0 regressed, 1 fixed, 1 unchanged.',
    );
  });

  it('lists the first 50 of a kind and says how many more there are', async () => {
    const [listed] = await changeLists(manyNew);
    expect(listed.kind).toBe('scan-changes-new');
    expect(listed.heading).toBe('New (52)');
    expect(listed.entries).toHaveLength(50);
    expect(listed.entries[0]).toBe('Medium Plugin 10202 GET /page-00 · id');
    expect(await page.getByTestId('scan-changes-new-more').innerText()).toBe('and 2 more.');
    expect(await page.getByTestId('scan-changes-against').innerText()).toBe(
      'The first scan of its tool here: every finding is new (52).',
    );
  });
});
