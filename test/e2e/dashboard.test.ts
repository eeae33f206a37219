import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { baseUrl } from '../integration/client.ts';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { addUserTo, createTenant, type Tenant } from '../integration/fixtures.ts';
import { addMember, createUser } from '../../shared/identity/admin.ts';
import { PERMISSIONS } from '../../shared/context/permissions.ts';
import { completeScan, reportAlerts, startScan } from '../integration/scan-helpers.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, openSection, signIn as signInToOverview } from './browser.ts';
import { readZapSample, ZAP_SAMPLE } from './zap-sample.ts';

// The dashboard in a real Chromium against the local stack the integration tests run (the same server code as
// `npm start`, serving web/dist at / and the API at /api). One browser for the whole file to keep it short.
// A page settles in tens of milliseconds on an idle machine but can take seconds on a busy shared one: polled
// expectations wait up to 10 s (the default 1 s made them flaky there), and a test, a walk through many pages, may
// take minutes there (about 60 s at a load of 10 on 2 cores, where the suite's 60 s default failed it).
vi.setConfig({ testTimeout: 240_000, expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let context: BrowserContext;
let page: Page;
let tenant: Tenant;

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant] = await Promise.all([launchBrowser(), createTenant()]);
  context = browser.context;
  page = context.pages()[0] ?? (await context.newPage());
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** Fails the test if the page runs anything a hostile value carries (dialogs, or the marker global). */
async function expectNothingExecuted(p: Page): Promise<void> {
  expect(await p.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
}

/** Signs in afresh and opens the applications. */
async function signIn(p: Page, apiKey: string): Promise<void> {
  await signInToOverview(p, apiKey);
  await openSection(p, 'Applications');
}

const heading = (p: Page, name: string | RegExp) => p.getByRole('heading', { level: 1, name }).waitFor();

describe('dashboard', () => {
  it('signs in, creates an application, shows a reported scan down to a finding, and signs out', async () => {
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // The sign-in page itself, then sign in by pasting the key.
    await page.goto(`${baseUrl()}/`);
    await page.getByRole('heading', { name: 'Sign in to hawk-api' }).waitFor();
    await expectAccessible(page, 'sign-in');
    await page.getByLabel('API key').fill('hawk.not.a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That API key was not accepted').waitFor();
    await signIn(page, tenant.apiKey);

    // The key is not kept anywhere in the page; only the token, in this tab's session storage.
    const storage = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    expect(storage).not.toContain(tenant.apiKey);
    expect(await page.evaluate(() => sessionStorage.getItem('hawk.token'))).toMatch(/^ey/);
    await page.getByText('No applications yet.').waitFor();
    await expectAccessible(page, 'applications (empty)');

    // Create an application with its first environment.
    await page.getByText('New application').click();
    await page.getByLabel('Name', { exact: true }).fill('shop');
    await page.getByLabel('First environment').fill('production');
    await page.getByRole('button', { name: 'Create application' }).click();
    await heading(page, 'shop');
    const appId = page.url().split('/app/')[1]!;
    await page.getByRole('link', { name: 'production' }).waitFor();
    await expectAccessible(page, 'application');

    // An API description: the validation error is shown at its line; a valid one is uploaded and mapped.
    const description = page.getByLabel('or paste it');
    await description.fill(
      "openapi: 3.0.3\ninfo:\n  title: shop\n  version: '1'\npaths:\n  /items:\n    get:\n      responses: 42\n",
    );
    await page.getByRole('button', { name: 'Upload description' }).click();
    const marked = page.locator('[role=alert] pre mark');
    await marked.waitFor();
    expect(await marked.textContent()).toContain('responses: 42');
    await description.fill("openapi: 3.0.3\ninfo:\n  title: shop\n  version: '1'\npaths: {}\n");
    await page.getByRole('button', { name: 'Upload description' }).click();
    await page.getByText(/^Uploaded OpenAPI 3\.0\.3 description/).waitFor();
    const mapped = page.getByRole('list', { name: 'Mapped API descriptions' });
    await mapped.getByText('uploaded for this application').waitFor();

    // Days to fix: the organization's by default; an environment's own High days override them there only.
    const sla = page.getByRole('table', { name: 'Days to fix a finding, by place' });
    const slaRow = (name: string) => sla.getByRole('row', { name: new RegExp(`^${name}`) });
    await expect.poll(() => slaRow('The application').innerText()).toMatch(/^The application\s+30\s+90\s+180/);
    await page.getByLabel('For').selectOption({ label: 'environment production' });
    await page.getByLabel('High days').fill('3');
    await page.getByRole('button', { name: 'Set days' }).click();
    await expect.poll(() => slaRow('Environment production').innerText()).toMatch(/3 \(set here\)\s+90\s+180/);
    expect(await slaRow('The application').innerText()).toMatch(/^The application\s+30\s+90\s+180/);
    await slaRow('Environment production').getByRole('button').click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: 'Remove the override of environment production' })
      .click();
    await expect.poll(() => slaRow('Environment production').innerText()).toMatch(/^Environment production\s+30\s+90/);

    // A scanner reports a scan through the reporting API.
    const { scanId } = await startScan(tenant.token, appId, { env: 'production', host: 'https://shop.test' });
    await reportAlerts(tenant.token, scanId, [
      {
        pluginId: '40012',
        name: 'Cross Site Scripting (Reflected)',
        severity: 'High',
        description: 'Reflected <b>XSS</b> in q',
        cweId: '79',
        references: ['https://owasp.org/www-community/attacks/xss/'],
        uris: [
          {
            uri: '/search?q=x',
            requestMethod: 'GET',
            param: 'q',
            evidence: '<script>alert(1)</script>',
            requestHeader: 'GET https://shop.test/search?q=x HTTP/1.1\r\nHost: shop.test\r\n',
            responseHeader: 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n',
            responseBody:
              '<html><body><h1 id="reflected">Results for</h1><script>window.__pwned = "response"</script></body></html>',
          },
        ],
      },
      {
        pluginId: '10038',
        name: 'Content Security Policy Header Not Set',
        severity: 'Medium',
        uris: [
          { uri: '/', requestMethod: 'GET' },
          { uri: '/search', requestMethod: 'GET' },
        ],
      },
    ]);
    await completeScan(tenant.token, scanId);

    // The environment: last scan, untriaged counts and the chart.
    await page.getByRole('link', { name: 'production' }).click();
    await heading(page, 'production');
    await expect.poll(() => page.locator('.facts').innerText()).toContain('High: 1');
    await page.locator('figure.chart svg').waitFor();
    await expectAccessible(page, 'environment');

    // Scans list, the scan's alerts by severity, the alert's findings, the finding.
    await page.getByRole('link', { name: 'Scans', exact: true }).click();
    await heading(page, 'Scans');
    await expectAccessible(page, 'scans');
    await page.locator('tbody tr a').first().click();
    await heading(page, /^Scan of /);
    await page.getByRole('heading', { level: 2, name: /High 1 alert/ }).waitFor();
    await expectAccessible(page, 'scan');
    await page.getByRole('link', { name: 'Cross Site Scripting (Reflected)' }).click();
    await heading(page, 'Cross Site Scripting (Reflected)');
    await expectAccessible(page, 'alert');
    await page.getByRole('link', { name: '/search?q=x' }).click();
    await heading(page, /Finding at/);
    // Request and response are shown as text: the markup is visible, and none of it became elements.
    const response = page.getByLabel('Response', { exact: true });
    await expect.poll(() => response.textContent()).toContain('<h1 id="reflected">Results for</h1>');
    expect(await page.locator('#reflected').count()).toBe(0);
    expect(await page.getByText('<script>alert(1)</script>').count()).toBe(1);
    await expectAccessible(page, 'finding');
    await expectNothingExecuted(page);

    // The other main pages.
    for (const [link, title] of [
      ['Environments', 'Environments'],
      ['Teams', 'Teams'],
      ['Audit log', 'Audit log'],
      ['API descriptions', 'API descriptions'],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await heading(page, title);
      await page.locator('main table, main .state, main .rows').first().waitFor();
      await expectAccessible(page, title);
    }
    // The description uploaded above, with a short-lived download link on request.
    await page
      .getByRole('button', { name: /^Get download link for / })
      .first()
      .click();
    expect(
      await page.getByRole('link', { name: /^Download .* \(link valid for a few minutes\)$/ }).getAttribute('href'),
    ).toMatch(/^http/);
    // An organization scan configuration: refused with the service's message when invalid, then saved and listed.
    await page.getByText('Save a scan configuration').click();
    await page.getByLabel('Name', { exact: true }).fill('baseline');
    await page.getByLabel('HawkScan configuration (YAML)').fill('app: [unclosed');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.locator('main [role=alert]').waitFor();
    await page.getByLabel('HawkScan configuration (YAML)').fill('app:\n  env: production\n');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.locator('main tbody code', { hasText: 'baseline' }).waitFor();

    // Sign out: back to sign-in, nothing of the session left in storage.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You signed out.').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(dialogs).toEqual([]);
  });

  it('imports a ZAP report in the browser, triages findings one at a time and in bulk, sees the counts drop, downloads the CSV, signs out', async () => {
    const own = await createTenant(); // its own organization: the report holds exactly this sample
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await signIn(page, own.apiKey);
    await page.getByRole('link', { name: 'Scans', exact: true }).click();
    await page.getByText('No scans reported yet.').waitFor();
    expect(await page.locator('main').innerText()).toContain('npm run scanner -- import');
    await expectAccessible(page, 'scans (empty)');
    await page.getByRole('link', { name: 'Findings report', exact: true }).click();
    await page.getByText('No findings yet.').waitFor();
    await expectAccessible(page, 'findings report (empty)');

    // Create the application; its environment says how to get a first scan in.
    await page.getByRole('link', { name: 'Applications', exact: true }).click();
    await page.getByText('New application').click();
    await page.getByLabel('Name', { exact: true }).fill('legacy-portal');
    await page.getByLabel('First environment').fill('production');
    await page.getByRole('button', { name: 'Create application' }).click();
    await heading(page, 'legacy-portal');
    const appId = page.url().split('/app/')[1]!;
    await page.getByRole('link', { name: 'production' }).click();
    await heading(page, 'production');
    await page.getByText('No scan yet.').waitFor();
    expect(await page.getByLabel('Import command').textContent()).toBe(
      `npm run scanner -- import --app ${appId} --env production report.xml`,
    );
    await expectAccessible(page, 'environment (no scan)');

    // Import a real ZAP report (4 alerts, 7 instances: 2 Medium, 5 Low) from the environment's page, after a
    // malformed one is refused with the service's message.
    const reportFile = page.getByLabel('Scanner report (ZAP, Wapiti, Nuclei, Burp Suite, SARIF; up to 4 MiB)');
    await reportFile.setInputFiles('scanner/test/fixtures/zap/zap-xml_malformed_defectdojo.xml');
    await page.getByRole('button', { name: 'Import into production' }).click();
    await page.locator('main [role=alert]', { hasText: 'malformed XML at line 1' }).waitFor();
    expect(readZapSample().uriCount).toBe(7);
    await reportFile.setInputFiles(ZAP_SAMPLE);
    await page.getByRole('button', { name: 'Import into production' }).click();
    await page.getByText('Imported a ZAP 2.7.0 xml report from http://127.0.0.1:8080: 4 alerts, 7 findings').waitFor();
    const scanId = (await page.getByRole('link', { name: 'Open the scan' }).getAttribute('href'))!.split('/scan/')[1]!;
    await expect
      .poll(() => page.locator('.facts').innerText())
      .toMatch(/Untriaged findings\s+7 · High: 0 Medium: 2 Low: 5/);

    // The scan: 7 untriaged; the alert with two findings.
    await page.getByRole('link', { name: /^\d/ }).first().click(); // the last scan's start time
    await heading(page, /^Scan of /);
    await expect.poll(() => page.getByTestId('scan-untriaged').textContent()).toBe('7');
    await page.getByRole('link', { name: 'X-Content-Type-Options Header Missing' }).click();
    await heading(page, 'X-Content-Type-Options Header Missing');
    await expect.poll(() => page.getByTestId('alert-untriaged').textContent()).toBe('2 untriaged');
    await expectAccessible(page, 'alert with triage');

    // Bulk triage with the keyboard: Space ticks a finding's box, Tab moves on (past its link) to the next one.
    const boxes = page.locator('tbody input[type=checkbox]');
    expect(await boxes.count()).toBe(2);
    await boxes.first().focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    expect(await page.getByLabel('Select all 2 findings on this page').isChecked()).toBe(true);
    await page.getByRole('group', { name: 'Triage the 2 selected findings' }).waitFor();
    await page.getByLabel('Triage as').selectOption('FALSE_POSITIVE');
    await page.getByLabel('Note (optional)').fill('static assets only');
    await page.getByRole('button', { name: 'Triage 2 findings' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('False positive: 2 findings triaged.').waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.className)).toBe('triage-outcome'); // focus is not lost
    await expect.poll(() => page.getByTestId('alert-untriaged').textContent()).toBe('0 untriaged');
    expect(await page.locator('tbody').innerText()).toContain('False positive “static assets only”');
    expect(await boxes.first().isChecked()).toBe(false); // the selection is cleared after the triage

    // A partial failure: the answer names the finding that was not triaged (here a hash added on the way to the
    // service, which the environment never saw) while the other one is.
    const unknownHash = 'f'.repeat(64);
    await page.route('**/findings/triage', async (route) => {
      const body = JSON.parse(route.request().postData()!);
      body.actions.push({ ...body.actions[0], findingHash: unknownHash });
      await route.continue({ postData: JSON.stringify(body) });
    });
    await boxes.first().check();
    await page.getByLabel('Triage as').selectOption('RISK_ACCEPTED');
    await page.getByRole('button', { name: 'Triage', exact: true }).click();
    await page.getByText('Risk accepted: 1 of 2 findings triaged; 1 failed.').waitFor();
    expect(await page.locator('.triage-outcome li').innerText()).toMatch(
      /^ffffffffffff…: finding f{64} not found in environment/,
    );
    await page.unroute('**/findings/triage');
    await expect.poll(() => page.locator('tbody tr').first().innerText()).toContain('Risk accepted');

    // One finding on its own page: risk accepted, with a note; its status and history show it.
    await page.locator('.crumbs a').nth(1).click(); // the scan
    await heading(page, /^Scan of /);
    await expect.poll(() => page.getByTestId('scan-untriaged').textContent()).toBe('5');
    await page.getByRole('link', { name: 'Web Browser XSS Protection Not Enabled' }).click();
    await heading(page, 'Web Browser XSS Protection Not Enabled');
    await page.getByRole('link', { name: 'http://127.0.0.1:8080/robots.txt' }).click();
    await heading(page, /Finding at/);
    await expect.poll(() => page.getByTestId('finding-status').textContent()).toBe('Untriaged');
    // Its due date: a Low finding, the default 180 days from its first sighting (docs/GOVERNANCE.md).
    expect(await page.getByTestId('finding-due').textContent()).toMatch(/^\d{4}-\d\d-\d\d \(179 days left\)$/);
    await page.getByLabel('Triage as').selectOption('RISK_ACCEPTED');
    await page.getByLabel('Note (optional)').fill('robots.txt is public');
    await page.getByRole('button', { name: 'Triage', exact: true }).click();
    await page.getByText('Risk accepted: 1 finding triaged.').waitFor();
    await expect
      .poll(() => page.getByTestId('finding-status').textContent())
      .toBe('Risk accepted “robots.txt is public”');
    await expect.poll(() => page.getByTestId('finding-due').textContent()).toMatch(/^None while it is triaged/);
    await page.getByRole('heading', { name: 'Triage history' }).waitFor();
    // A comment keeps it counted as it was (triaged here) and is kept in the history.
    await page.getByLabel('Triage as').selectOption('ADD_COMMENT');
    await page.getByLabel('Note', { exact: true }).fill('checked again in March');
    await page.getByRole('button', { name: 'Triage', exact: true }).click();
    await page.getByText('Comment: 1 finding triaged.').waitFor();
    await expect.poll(() => page.locator('.history').innerText()).toContain('checked again in March');
    await expectAccessible(page, 'finding with triage');

    // The counts: scan and environment both show 4 untriaged (7 - 1 false positive - 2 risks accepted).
    await page.locator('.crumbs a').first().click();
    await heading(page, /^Scan of /);
    await expect.poll(() => page.getByTestId('scan-untriaged').textContent()).toBe('4');
    expect(await page.locator('.facts').innerText()).toMatch(/False positive: 1/);
    await page.locator('.crumbs a').nth(2).click(); // the environment
    await heading(page, 'production');
    await expect
      .poll(() => page.locator('.facts').innerText())
      .toMatch(/Untriaged findings\s+4 · High: 0 Medium: 2 Low: 2/);

    // The findings report: every finding with its status; filters in the URL; the CSV has the same rows.
    await page.getByRole('link', { name: 'Findings report', exact: true }).click();
    await heading(page, 'Findings report');
    await expect.poll(() => page.locator('main tbody tr').count()).toBe(7);
    await expectAccessible(page, 'findings report');
    const rows = await page.locator('main tbody tr').allInnerTexts();
    expect(rows.filter((r) => r.includes('False positive'))).toHaveLength(1);
    expect(rows.filter((r) => r.includes('Risk accepted'))).toHaveLength(2);
    const downloaded = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV (7 findings)' }).click();
    const download = await downloaded;
    expect(download.suggestedFilename()).toMatch(/^findings-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = parse(readFileSync((await download.path())!, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(csv).toHaveLength(7);
    expect(new Set(csv.map((r) => r.scanId))).toEqual(new Set([scanId]));
    expect(csv.map((r) => r.status).sort()).toEqual([
      'FALSE_POSITIVE',
      'NEW',
      'NEW',
      'NEW',
      'NEW',
      'RISK_ACCEPTED',
      'RISK_ACCEPTED',
    ]);
    expect(csv.filter((r) => r.status === 'RISK_ACCEPTED').map((r) => r.findingUrl)).toContain(
      'http://127.0.0.1:8080/robots.txt',
    );
    expect(
      csv
        .filter((r) => r.findingRisk === 'Medium')
        .map((r) => r.findingPluginName)
        .sort(),
    ).toEqual(['Directory Browsing', 'X-Frame-Options Header Not Set']);
    await page.getByText('Downloaded 7 findings as CSV.').waitFor();
    // As of a day before any scan: nothing; the CSV button says so by being disabled.
    await page.getByLabel('As of').fill('2020-01-01');
    await page.getByText('No finding matches these filters.').waitFor();
    expect(new URL(page.url()).searchParams.get('date')).toBe('2020-01-01');
    expect(await page.getByRole('button', { name: 'Download CSV' }).isDisabled()).toBe(true);

    // Sign out.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You signed out.').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(dialogs).toEqual([]);
    page.removeAllListeners('dialog');
  });

  it('adds team members found by name or e-mail, and falls back to a user id without read:member', async () => {
    const own = await createTenant();
    const colleague = await createUser({ email: `ada-${Date.now()}@example.test`, fullName: 'Ada Lovelace' });
    await addMember({ organizationId: own.orgId, userId: colleague.userId });
    const team = await fetch(`${baseUrl()}/api/v1/org/${own.orgId}/team`, {
      method: 'POST',
      headers: { authorization: `Bearer ${own.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Payments' }),
    });
    expect(team.status).toBe(200);
    await signIn(page, own.apiKey);
    await page.getByRole('link', { name: 'Teams', exact: true }).click();
    await page.getByRole('link', { name: 'Payments' }).click();
    await heading(page, 'Payments');
    await page.getByLabel('Find a member to add').fill('lovel');
    const candidates = page.getByRole('list', { name: 'Members you can add' });
    await expect
      .poll(() => candidates.locator('li').allInnerTexts())
      .toEqual([expect.stringContaining('Ada Lovelace')]);
    await expectAccessible(page, 'team with member search');
    await candidates.getByRole('button', { name: 'Add Ada Lovelace' }).click();
    await page.getByText('Added Ada Lovelace.').waitFor();
    await expect.poll(() => page.locator('main .rows').first().innerText()).toContain('Ada Lovelace');
    await page.getByLabel('Find a member to add').fill('nobody-has-this');
    await page.getByText("No other member's name or e-mail contains “nobody-has-this”.").waitFor();

    // Without read:member (nor read:report and write:triage): the user id field, no triage controls, and the
    // report page says what is missing; none of it ends the session.
    const limited = await addUserTo(
      own.orgId,
      PERMISSIONS.filter((p) => !['read:member', 'read:report', 'write:triage'].includes(p)),
    );
    await signIn(page, limited.apiKey);
    await page.getByRole('link', { name: 'Teams', exact: true }).click();
    await page.getByRole('link', { name: 'Payments' }).click();
    await heading(page, 'Payments');
    await page.getByText('lacks read:member').waitFor();
    await page.getByLabel('User id').waitFor();
    expect(await page.getByLabel('Find a member to add').count()).toBe(0);
    await page.getByRole('link', { name: 'Findings report', exact: true }).click();
    await page.getByText('Your role cannot read reports.').waitFor();
    await expectAccessible(page, 'findings report (no permission)');
    expect(await page.evaluate(() => sessionStorage.getItem('hawk.token'))).toMatch(/^ey/);
  });

  it('keeps the list state in the URL and pages through it', async () => {
    const own = await createTenant(); // its own organization: the list holds exactly these
    for (const name of ['alpha', 'beta', 'gamma', 'delta']) {
      const created = await fetch(`${baseUrl()}/api/v1/org/${own.orgId}/app`, {
        method: 'POST',
        headers: { authorization: `Bearer ${own.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, env: 'dev' }),
      });
      expect(created.status).toBe(200);
    }
    await signIn(page, own.apiKey);
    // A shared link: descending by name, 2 per page (the UI offers 25 and up; the URL takes any size the API accepts).
    await page.goto(`${baseUrl()}/org/${own.orgId}/apps?sort=name&dir=desc&size=2`);
    await expect
      .poll(() => page.locator('tbody tr').allInnerTexts())
      .toEqual([expect.stringContaining('gamma'), expect.stringContaining('delta')]);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect
      .poll(() => page.locator('tbody tr').allInnerTexts())
      .toEqual([expect.stringContaining('beta'), expect.stringContaining('alpha')]);
    expect(new URL(page.url()).searchParams.get('page')).toBe('1');
    await page.getByLabel('Search').fill('ph');
    await expect.poll(() => page.locator('tbody tr').allInnerTexts()).toEqual([expect.stringContaining('alpha')]);
    expect(new URL(page.url()).searchParams.get('q')).toBe('ph');
    expect(new URL(page.url()).searchParams.get('page')).toBeNull();

    // Keyboard: the first Tab reaches "Skip to content", which moves focus to the page's content.
    await page.reload();
    await page.locator('tbody tr').first().waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');

    // A permanent delete asks for the name first (Escape cancels), then deletes.
    await page.getByRole('link', { name: 'alpha' }).click();
    await heading(page, 'alpha');
    await page.getByRole('button', { name: 'Delete application' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('button', { name: 'Delete application' }).isDisabled()).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Delete application' }).click();
    await dialog.getByLabel('Type alpha to confirm').fill('alpha');
    await page.keyboard.press('Enter');
    await heading(page, 'Applications');
    await page.getByLabel('Search').fill('alpha');
    await page.getByText('No application matches these filters.').waitFor();
  });

  it('returns to sign-in with a message on 401 and says when to retry on 429', async () => {
    await signIn(page, tenant.apiKey);
    // A link to another organization's page says so, and the session stays.
    const other = await createTenant();
    await page.goto(`${baseUrl()}/org/${other.orgId}/apps`);
    await page.getByText('This organization is not one of yours.').waitFor();
    await page.getByRole('link', { name: 'Choose one of your organizations' }).click();
    await heading(page, 'Overview');
    // 429 from the service: the page says when to try again (Retry-After).
    await page.route('**/api/v2/org/*/envs*', (route) =>
      route.fulfill({
        status: 429,
        headers: { 'retry-after': '17', 'content-type': 'application/json' },
        body: '{"message":"Too many requests"}',
      }),
    );
    await page.getByRole('link', { name: 'Environments', exact: true }).click();
    await page.getByText('Too many requests: try again in 17 seconds.').waitFor();
    await page.unroute('**/api/v2/org/*/envs*');
    // A token the service does not accept (revoked, or signed by another key): back to sign-in, with why.
    const forged = `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: tenant.userId, exp: Math.floor(Date.now() / 1000) + 600 })).toString('base64url')}.c2ln`;
    await page.evaluate((token) => sessionStorage.setItem('hawk.token', token), forged);
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/apps`);
    await page.getByText('Your session has ended').waitFor();
    await page.getByRole('heading', { name: 'Sign in to hawk-api' }).waitFor();
  });

  it('refreshes the token before it expires', async () => {
    await page.clock.install();
    await signIn(page, tenant.apiKey);
    const before = await page.evaluate(() => sessionStorage.getItem('hawk.token'));
    const refreshed = page.waitForResponse((r) => r.url().includes('/api/v1/auth/refresh-token') && r.status() === 200);
    await page.clock.runFor('29:30'); // the token lives 30 minutes; the dashboard refreshes a minute before
    await refreshed;
    await expect.poll(() => page.evaluate(() => sessionStorage.getItem('hawk.token'))).not.toBe(before);
  });

  it('never executes HTML or script stored in names, descriptions, evidence or messages', async () => {
    const hostile = (where: string) => `<img src=x onerror="window.__pwned='${where}';alert('${where}')">`;
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const app = await fetch(`${baseUrl()}/api/v1/org/${tenant.orgId}/app`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: hostile('name'), env: 'dev' }),
    });
    const appId = ((await app.json()) as { applicationId: string }).applicationId;
    const { scanId, envId } = await startScan(tenant.token, appId, { env: 'dev', host: 'https://evil.test' });
    await reportAlerts(tenant.token, scanId, [
      {
        pluginId: '90001',
        name: hostile('alert-name'),
        severity: 'Low',
        description: hostile('description'),
        uris: [
          {
            uri: `/x?${hostile('uri')}`,
            requestMethod: 'POST',
            param: hostile('param'),
            evidence: hostile('evidence'),
            otherInfo: hostile('other'),
            requestHeader: `POST https://evil.test/x HTTP/1.1\r\nX-Evil: ${hostile('request-header')}\r\n`,
            requestBody: hostile('request-body'),
            responseHeader: 'HTTP/1.1 200 OK\r\n',
            responseBody: `${hostile('response')}<script>window.__pwned='script'</script>`,
          },
        ],
      },
    ]);
    await completeScan(tenant.token, scanId);
    // A triage comment and a member's name carry it too.
    const findings = (await (
      await fetch(`${baseUrl()}/api/v1/scan/${scanId}/alert/90001`, {
        headers: { authorization: `Bearer ${tenant.token}` },
      })
    ).json()) as { applicationScanAlertUris: { findingHash: string }[] };
    const triaged = await fetch(`${baseUrl()}/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        actions: [
          {
            findingHash: findings.applicationScanAlertUris[0]!.findingHash,
            status: 'ADD_COMMENT',
            note: hostile('comment'),
          },
        ],
      }),
    });
    expect(triaged.status).toBe(200);
    const member = await createUser({ email: `hostile-${Date.now()}@example.test`, fullName: hostile('member') });
    await addMember({ organizationId: tenant.orgId, userId: member.userId });
    const team = await fetch(`${baseUrl()}/api/v1/org/${tenant.orgId}/team`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: hostile('team') }),
    });
    const teamId = ((await team.json()) as { team: { id: string } }).team.id;

    await signIn(page, tenant.apiKey);
    const visit = async (path: string, shows: string) => {
      await page.goto(`${baseUrl()}/org/${tenant.orgId}${path}`);
      await page.locator('main').getByText(hostile(shows)).filter({ visible: true }).first().waitFor();
      expect(await page.locator('main img, main script').count(), path).toBe(0);
      await expectNothingExecuted(page);
    };
    await visit('/apps', 'name');
    await visit(`/app/${appId}`, 'name');
    await visit('/scans', 'name');
    await visit(`/scan/${scanId}`, 'alert-name');
    await visit(`/scan/${scanId}/alert/90001`, 'description');
    await page.locator('main').getByText(hostile('comment')).first().waitFor();
    await page
      .getByRole('link', { name: /evil|uri/ })
      .first()
      .click();
    await page.getByText(hostile('evidence')).waitFor();
    await page.locator('.history').getByText(hostile('comment')).waitFor(); // the triage history
    for (const where of ['param', 'other', 'request-header', 'request-body', 'response']) {
      expect(await page.locator('main').innerText(), where).toContain(hostile(where));
    }
    expect(await page.locator('main img, main script').count()).toBe(0);
    await expectNothingExecuted(page);
    // The findings report (names, alert name, URI) and its CSV; the team page's member search.
    await visit(`/report?app=${appId}`, 'alert-name');
    expect(await page.locator('main').innerText()).toContain(hostile('uri'));
    const downloaded = page.waitForEvent('download');
    await page.getByRole('button', { name: /^Download CSV/ }).click();
    expect(readFileSync((await (await downloaded).path())!, 'utf8')).toContain('onerror');
    await expectNothingExecuted(page);
    await visit(`/team/${teamId}`, 'team');
    await page.getByLabel('Find a member to add').fill('img');
    await page.getByRole('list', { name: 'Members you can add' }).getByText(hostile('member')).waitFor();
    expect(await page.locator('main img, main script').count()).toBe(0);
    await expectNothingExecuted(page);
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('creates an API key in Settings, shows it once, and revokes it; a manager sees and revokes a member key', async () => {
    const own = await createTenant();
    const member = await addUserTo(own.orgId, ['read:application', 'write:scan']);
    const appId = await fetch(`${baseUrl()}/api/v1/org/${own.orgId}/app`, {
      method: 'POST',
      headers: { authorization: `Bearer ${own.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `keys-${Date.now()}`, env: 'dev' }),
    }).then(async (r) => (await r.json()).applicationId as string);
    const newKey = (body: object) =>
      fetch(`${baseUrl()}/api/v1/user/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json());
    // A key narrowed to this organization's application is the manager's to revoke; one of the whole account is not.
    const memberKey = await newKey({ name: 'member laptop', applicationId: appId });
    await newKey({ name: 'member account' });
    await signIn(page, own.apiKey);
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await heading(page, 'Settings');
    await page.getByText('New API key').click();
    await page.getByLabel('Name', { exact: true }).fill('CI importer');
    await page.getByLabel('write:scan', { exact: true }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = await page.getByTestId('new-api-key').innerText();
    expect(shown).toMatch(/^hawk\./);
    const login = await fetch(`${baseUrl()}/api/v1/auth/login`, { headers: { 'x-apikey': shown } });
    expect(login.status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('new-api-key').count()).toBe(0);
    const mine = page.getByRole('region', { name: 'Your API keys' }).getByRole('row', { name: /CI importer/ });
    await expect.poll(() => mine.innerText()).toContain('write:scan');
    await expectAccessible(page, 'settings');
    // The key is in no storage of the page.
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }))).not.toContain(shown);

    await mine.getByRole('button', { name: 'Revoke CI importer' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke CI importer' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' }); // the page behind is aria-hidden until then
    await expect.poll(() => page.getByRole('row', { name: /CI importer/ }).count()).toBe(0);
    expect((await fetch(`${baseUrl()}/api/v1/auth/login`, { headers: { 'x-apikey': shown } })).status).toBe(401);

    const whole = page.getByRole('row', { name: /member account/ });
    await expect.poll(() => whole.innerText()).toContain('only its user revokes it');
    const theirs = page.getByRole('row', { name: /member laptop/ });
    await theirs.getByRole('button', { name: 'Revoke member laptop' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke member laptop' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' }); // the page behind is aria-hidden until then
    await expect.poll(() => page.getByRole('row', { name: /member laptop/ }).count()).toBe(0);
    expect((await fetch(`${baseUrl()}/api/v1/auth/login`, { headers: { 'x-apikey': memberKey.apiKey } })).status).toBe(
      401,
    );
  });
  it('Members: invites with a link shown once, which a new user accepts signed out; changes a role and removes', async () => {
    const own = await createTenant(); // an admin of an organization without owners: acts as its owner
    const member = await addUserTo(own.orgId, ['read:application']);
    const memberEmail = await fetch(`${baseUrl()}/api/v1/user`, {
      headers: { authorization: `Bearer ${member.token}` },
    })
      .then((r) => r.json())
      .then((body) => body.user.external.email as string);
    await signIn(page, own.apiKey);
    await page.getByRole('link', { name: 'Members', exact: true }).click();
    await heading(page, 'Members');
    await page.getByText('Invite a member').click();
    const address = `invitee-${Date.now()}@example.test`;
    await page.getByLabel('E-mail').fill(address);
    await page.locator('details.create').getByLabel(/^Role/).selectOption('READ_ONLY');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const link = await page.getByTestId('invitation-link').innerText();
    expect(link).toMatch(/\/#invitation=[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('invitation-link').count()).toBe(0);
    await page.getByRole('row', { name: new RegExp(address) }).waitFor();
    await expectAccessible(page, 'members');

    // A member's role, changed from the table.
    const row = page.getByRole('row').filter({ hasText: memberEmail });
    await expect.poll(() => row.innerText()).toContain('Custom');
    await row.getByLabel(/^Role of/).selectOption('SCANNER');
    await row.getByRole('button', { name: 'Change role' }).click();
    await expect.poll(() => row.innerText()).toContain('Scanner/CI');

    // The invitee opens the link signed out: the token leaves the address bar, the first key is shown once.
    const guestPage = await context.newPage(); // a new tab: no session (it lives in each tab's storage)
    await guestPage.goto(link.replace(/^https?:\/\/[^/]+/, baseUrl()));
    await guestPage.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
    expect(guestPage.url()).not.toContain('invitation=');
    await guestPage.getByLabel('Your name (optional)').fill('Ines Invitee');
    await guestPage.getByRole('button', { name: 'Accept invitation' }).click();
    const firstKey = await guestPage.getByTestId('first-api-key').innerText();
    expect((await fetch(`${baseUrl()}/api/v1/auth/login`, { headers: { 'x-apikey': firstKey } })).status).toBe(200);
    await guestPage.close();

    // Removal, behind a confirmation.
    await page.reload();
    const invitee = page.getByRole('row', { name: /Ines Invitee/ });
    await expect.poll(() => invitee.innerText()).toContain('Read-only');
    await invitee.getByRole('button', { name: 'Remove Ines Invitee' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove Ines Invitee' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' }); // the page behind is aria-hidden until then
    await expect.poll(() => page.getByRole('row', { name: /Ines Invitee/ }).count()).toBe(0);
    expect((await fetch(`${baseUrl()}/api/v1/auth/login`, { headers: { 'x-apikey': firstKey } })).status).toBe(401);
  });
});
