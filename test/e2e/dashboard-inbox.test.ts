import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { createApp } from '../integration/scan-helpers.ts';
import { addMember, createUser } from '../../shared/identity/admin.ts';
import { wapitiFixture } from '../../scanner/test/wapiti-expected.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, openSection, signIn } from './browser.ts';
import { ZAP_SAMPLE } from './zap-sample.ts';

// The triage inbox in Chromium: the organization's untriaged findings of two applications and two tools, filtered
// by tool and application, selected with the keyboard, accepted as a risk until a chosen day in one bulk triage
// (gone from the inbox, in the report with that expiry), and paged as the findings report pages.

vi.setConfig({ testTimeout: 240_000, expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
const org = (path: string) => `${baseUrl()}/org/${tenant.orgId}/${path}`;
type ReportRow = {
  findingHash: string;
  environmentId: string;
  applicationId: string;
  status: string;
  riskAcceptedUntil?: string;
  assigneeId?: string;
  assigneeName?: string;
};

const report = async (query: Record<string, string> = {}) => {
  const out = await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, { token: tenant.token, query });
  expect(out.status, out.text).toBe(200);
  return out.body as { findings: ReportRow[]; totalFindings: number };
};
/** Untriaged findings (environment and hash) among report rows. */
const untriaged = (rows: ReportRow[]) =>
  new Set(rows.filter((r) => r.status === 'NEW').map((r) => `${r.environmentId}:${r.findingHash}`));

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant] = await Promise.all([launchBrowser(), createTenant()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize({ width: 1440, height: 900 });
  const zapApp = await createApp(tenant, { name: 'legacy-portal', env: 'production' });
  const wapitiApp = await createApp(tenant, { name: 'headers-shop', env: 'dev' });
  for (const [appId, env, rawBody, contentType] of [
    [zapApp, 'production', readFileSync(ZAP_SAMPLE, 'utf8'), 'application/xml'],
    [wapitiApp, 'dev', wapitiFixture('wapiti-json_3.0.4_local-node-target_GENERATED-here.json'), 'text/plain'],
  ] as const) {
    const imported = await api('POST', `/api/v1/app/${appId}/scan/import`, {
      token: tenant.token,
      rawBody,
      contentType,
      query: { env },
    });
    expect(imported.status, imported.text).toBe(200);
  }
  const sla = await api('PUT', `/api/v1/org/${tenant.orgId}/sla`, {
    token: tenant.token,
    body: { days: { High: 7, Medium: 30, Low: 90 }, riskAcceptance: { defaultDays: 30, maxDays: 90 } },
  });
  expect(sla.status, sla.text).toBe(200);
  await signIn(page, tenant.apiKey);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** A column's cells in the inbox's table. */
async function column(table: Locator, name: string): Promise<string[]> {
  await table.waitFor();
  const index = (await table.getByRole('columnheader').allInnerTexts()).indexOf(name);
  expect(index, name).toBeGreaterThanOrEqual(0);
  return table.evaluate(
    (t: HTMLTableElement, i) => [...t.tBodies[0]!.rows].map((r) => (r.cells[i]!.textContent ?? '').trim()),
    index,
  );
}

describe('the triage inbox', () => {
  const inbox = () => page.getByRole('table', { name: /^Untriaged findings/ });

  it('lists every untriaged finding of the organization, one row each, and filters them', async () => {
    await openSection(page, 'Triage inbox');
    const all = untriaged((await report({ pageSize: '1000' })).findings);
    await expect.poll(async () => (await column(inbox(), 'Finding')).length).toBe(all.size);
    expect(new Set(await column(inbox(), 'Tool'))).toEqual(new Set(['ZAP', 'Wapiti']));
    await expectAccessible(page, 'triage inbox');

    const filters = page.getByRole('search', { name: 'Filter the inbox' });
    await filters.getByLabel('Tool').selectOption('Wapiti');
    await expect.poll(async () => new Set(await column(inbox(), 'Tool'))).toEqual(new Set(['Wapiti']));
    expect(new Set(await column(inbox(), 'Application'))).toEqual(new Set(['headers-shop']));
    await filters.getByLabel('Tool').selectOption('');
    await filters.getByLabel('Application').selectOption({ label: 'legacy-portal' });
    await expect.poll(async () => new Set(await column(inbox(), 'Application'))).toEqual(new Set(['legacy-portal']));
    expect(page.url()).toMatch(/[?&]app=/);
    await filters.getByLabel('Severity').selectOption('Medium');
    await expect.poll(async () => (await column(inbox(), 'Risk')).every((r) => r.startsWith('Medium'))).toBe(true);
    await filters.getByRole('button', { name: 'Clear the filters' }).click();
    await expect.poll(async () => (await column(inbox(), 'Finding')).length).toBe(all.size);
  });

  it('selects with the keyboard and accepts the risk of the selection until a chosen day', async () => {
    await page.goto(org('inbox'));
    const boxes = inbox().locator('tbody input[type=checkbox]');
    await boxes.first().waitFor();
    const before = await boxes.count();
    await boxes.first().focus();
    await page.keyboard.press('x'); // select the first
    await page.keyboard.press('j'); // move to the second
    await page.keyboard.press('x');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('x'); // and the fourth
    const labels = await inbox()
      .locator('tbody input[type=checkbox]:checked')
      .evaluateAll((all) => all.map((b) => b.getAttribute('aria-label')));
    expect(labels).toHaveLength(3);
    // A label may name rows of other environments too: each selected one's rows drop by the one triaged.
    const labelled = (label: string | null) => page.getByRole('checkbox', { name: label!, exact: true }).count();
    const labelledBefore = await Promise.all(labels.map(labelled));
    const form = page.getByRole('group', { name: /^Triage the 3 selected findings/ });
    await form.waitFor();

    await page.keyboard.press('t'); // to the triage form's action
    await form.getByLabel('Triage as').selectOption('RISK_ACCEPTED');
    const until = form.getByLabel('Accepted until');
    const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    await expect.poll(() => until.inputValue()).toBe(inDays(30)); // the organization's default
    expect(await until.getAttribute('max')).toBe(inDays(90));
    expect(await form.innerText()).toContain('Default 30 days, at most 90 days');
    await until.fill(inDays(45));
    await form.getByLabel(/^Note/).fill('Internal only, fixed with the next release');
    await expectAccessible(page, 'triage inbox, triaging');
    await form.getByRole('button', { name: 'Triage 3 findings' }).click();
    await page.getByText('Risk accepted: 3 findings triaged.').waitFor();

    await expect.poll(() => boxes.count()).toBe(before - 3);
    const accepted = (await report({ pageSize: '1000' })).findings.filter((r) => r.status === 'RISK_ACCEPTED');
    expect(new Set(accepted.map((r) => `${r.environmentId}:${r.findingHash}`)).size).toBe(3);
    for (const row of accepted) expect(row.riskAcceptedUntil?.slice(0, 10)).toBe(inDays(45));
    for (const [i, label] of labels.entries()) expect(await labelled(label)).toBeLessThan(labelledBefore[i]!);

    // a selects the page, Escape clears it.
    await boxes.first().focus();
    await page.keyboard.press('a');
    await page.getByRole('group', { name: new RegExp(`^Triage the ${before - 3} selected findings`) }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('group', { name: 'Triage the selected findings (select some below)' }).waitFor();
  });

  it('assigns the selection to a member, filters by assignee, and refuses a non-member naming them', async () => {
    // Another member to assign to, and a user of no organization.
    const { userId: dana } = await createUser({ email: `dana-${Date.now()}@example.test`, fullName: 'Dana Reviewer' });
    await addMember({ organizationId: tenant.orgId, userId: dana });
    const { userId: stranger } = await createUser({
      email: `stranger-${Date.now()}@example.test`,
      fullName: 'Stranger',
    });

    await page.goto(org('inbox'));
    const boxes = inbox().locator('tbody input[type=checkbox]');
    await boxes.first().waitFor();
    const before = await boxes.count();
    expect(new Set(await column(inbox(), 'Assignee'))).toEqual(new Set(['Unassigned']));
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    const form = page.getByRole('group', { name: 'Assign the 2 selected' });
    await form.getByLabel('Assign to').selectOption({ label: 'Dana Reviewer' });
    await expectAccessible(page, 'triage inbox, assigning');
    await form.getByRole('button', { name: 'Assign' }).click();
    await page.getByText('Assigned 2 findings to Dana Reviewer.').waitFor();

    // The report's rows carry the assignee; the findings stay untriaged, in the inbox.
    const rows = (await report({ pageSize: '1000' })).findings;
    const assigned = rows.filter((r) => r.assigneeId === dana);
    expect(new Set(assigned.map((r) => `${r.environmentId}:${r.findingHash}`)).size).toBe(2);
    for (const r of assigned) expect(r).toMatchObject({ assigneeName: 'Dana Reviewer', status: 'NEW' });
    await expect.poll(() => boxes.count()).toBe(before);

    const filters = page.getByRole('search', { name: 'Filter the inbox' });
    await filters.getByLabel('Assignee').selectOption({ label: 'Dana Reviewer' });
    await expect.poll(async () => await column(inbox(), 'Assignee')).toEqual(['Dana Reviewer', 'Dana Reviewer']);
    expect(page.url()).toContain(`assignee=${dana}`);
    await filters.getByLabel('Assignee').selectOption('none');
    await expect.poll(async () => (await column(inbox(), 'Finding')).length).toBe(before - 2);
    expect(new Set(await column(inbox(), 'Assignee'))).toEqual(new Set(['Unassigned']));
    await filters.getByLabel('Assignee').selectOption('');

    // A user of no organization of the caller's: 400 naming them; an unknown field: 400; another organization's
    // caller: 404, never confirming.
    const target = assigned[0]!;
    const path = `/api/v1/org/${tenant.orgId}/app/${target.applicationId}/env/${target.environmentId}/findings/assignee`;
    const refused = await api('POST', path, {
      token: tenant.token,
      body: { findingHashes: [target.findingHash], assigneeId: stranger },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(stranger);
    const extra = await api('POST', path, {
      token: tenant.token,
      body: { findingHashes: [target.findingHash], assigneeId: dana, priority: 'high' },
    });
    expect(extra.status).toBe(400);
    const other = await createTenant();
    const foreign = await api('POST', path.replace(tenant.orgId, other.orgId), {
      token: other.token,
      body: { findingHashes: [target.findingHash], assigneeId: other.userId },
    });
    expect(foreign.status).toBe(404);
    // Each change has its audit entry (the tenant's other triage entries come first: one page of all of them).
    const audit = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, {
      token: tenant.token,
      query: { pageSize: 1000 },
    });
    expect(audit.status, audit.text).toBe(200);
    const entries = (audit.body.auditRecords ?? audit.body.records ?? []) as { payload?: string }[];
    expect(entries.filter((e) => e.payload?.includes('"action":"ASSIGN"') && e.payload.includes(dana))).toHaveLength(2);

    // Unassign one from the page.
    await page.goto(org(`inbox?assignee=${dana}`));
    await boxes.first().check();
    const one = page.getByRole('group', { name: 'Assign the 1 selected' });
    await one.getByLabel('Assign to').selectOption('');
    await one.getByRole('button', { name: 'Assign' }).click();
    await page.getByText('Unassigned 1 finding.').waitFor();
    await expect.poll(async () => await column(inbox(), 'Assignee')).toEqual(['Dana Reviewer']);
  });

  it("pages as the report pages: a page of the inbox is the report's page, its untriaged findings", async () => {
    const { totalFindings } = await report();
    const size = 5;
    expect(totalFindings).toBeGreaterThan(size);
    const asked: string[] = [];
    const onRequest = (r: { url: () => string }) => {
      if (r.url().includes('/reports/org/')) asked.push(new URL(r.url()).search);
    };
    page.on('request', onRequest);
    await page.goto(org(`inbox?size=${size}`));
    await page.getByRole('navigation', { name: 'Pages' }).getByText(`${totalFindings} report rows`).waitFor();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Next' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).getByText('Page 2').waitFor();
    await expect.poll(() => asked.some((q) => q.includes(`pageSize=${size}`) && q.includes('pageToken=1'))).toBe(true);
    page.off('request', onRequest);
    const second = untriaged((await report({ pageSize: String(size), pageToken: '1' })).findings);
    // The page's rows once its answer came (the previous page's stay on screen while it loads).
    const shown = async () => ((await inbox().count()) ? (await column(inbox(), 'Finding')).length : 0);
    await expect.poll(shown).toBe(second.size);
    expect(page.url()).toMatch(/[?&]page=1/);
  });
});
