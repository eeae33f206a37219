import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { alert, completeScan, createApp, reportAlerts, startScan } from '../integration/scan-helpers.ts';
import { startSlackFake } from '../integration/chat-fakes.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, openSection, signIn } from './browser.ts';

// What the dashboard's pages show, in Chromium against the local stack: each record's activity type in the audit
// log, a Reproduce command that sends the recorded request exactly, every application (CLOUD ones too) in the
// findings report's filter, an invitation that starts from the least-privileged role, and messages that link to the
// dashboard absolutely (the local stack's PUBLIC_URL is its own address).

vi.setConfig({ testTimeout: 240_000, expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant] = await Promise.all([launchBrowser(), createTenant()]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await signIn(page, tenant.apiKey);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** A loopback HTTP server that records each request it gets, exactly as it came. */
async function recordingServer() {
  const requests: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      requests.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'text/plain' }).end('recorded');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('dashboard pages', () => {
  it("shows each audit record's activity type and its details as fields, not JSON", async () => {
    await createApp(tenant, { name: 'audited-shop', env: 'production' });
    await openSection(page, 'Audit log');
    // The application's entry (its first environment has one of its own).
    const row = page.getByRole('row').filter({ hasText: 'audited-shop' }).filter({ hasText: 'APPLICATION_ADDED' });
    await row.waitFor();
    const cells = row.getByRole('cell');
    expect(await cells.nth(2).innerText()).toBe('APPLICATION_ADDED');
    expect(await page.getByRole('cell', { name: 'UNKNOWN' }).count()).toBe(0);
    const details = await cells.nth(3).innerText();
    expect(details).toMatch(/Application name\s*audited-shop/);
    expect(details).not.toContain('{');
    expect(details).not.toContain('"');
  });

  it('gives a Reproduce command that sends the recorded request exactly, whatever its values hold', async () => {
    const target = await recordingServer();
    const dir = mkdtempSync(join(tmpdir(), 'hawk-reproduce-'));
    const marker = join(dir, 'executed');
    try {
      const appId = await createApp(tenant, { name: 'reproduced', env: 'dev' });
      const { scanId } = await startScan(tenant.token, appId, { host: target.origin });
      // Values a hostile target could have put in a request the scanner recorded: quotes, command substitution,
      // curl's URL globbing characters and a dot segment curl would otherwise squash.
      const hostile = `it's $(touch ${marker}) \`touch ${marker}\` "x" \\ ; touch ${marker}`;
      const path = `/a/../search?q=${encodeURIComponent("it's")}&r[]={1,2}&x=$(id)`;
      const body = `{"note":"${hostile.replace(/["\\]/g, '\\$&')}"}\n`;
      await reportAlerts(tenant.token, scanId, [
        {
          pluginId: '40012',
          name: 'Cross Site Scripting (Reflected)',
          severity: 'High',
          description: 'Reflected input.',
          cweId: '79',
          references: [],
          uris: [
            {
              uri: '/search',
              requestMethod: 'PUT',
              param: 'q',
              evidence: '',
              otherInfo: '',
              requestHeader:
                `PUT ${target.origin}${path} HTTP/1.1\r\nHost: ${new URL(target.origin).host}\r\n` +
                `X-Hostile: ${hostile}\r\nContent-Type: application/json\r\n`,
              requestBody: body,
              responseHeader: 'HTTP/1.1 200 OK\r\n',
              responseBody: '',
            },
          ],
        },
      ]);
      await completeScan(tenant.token, scanId);
      const alert = await api('GET', `/api/v1/scan/${scanId}/alert/40012`, { token: tenant.token });
      const uri = alert.body.applicationScanAlertUris[0];
      await page.goto(
        `${baseUrl()}/org/${tenant.orgId}/scan/${scanId}/finding/${uri.alertUriId}/${uri.msgId}?plugin=40012&page=0`,
      );
      const command = await page.getByRole('region', { name: 'curl command' }).innerText();
      expect(command).toMatch(/^curl /);

      await promisify(execFile)('sh', ['-c', command], { timeout: 20_000 });
      expect(existsSync(marker), 'the command ran something a value carries').toBe(false);
      expect(target.requests).toHaveLength(1);
      const sent = target.requests[0]!;
      expect(sent.method).toBe('PUT');
      expect(sent.url).toBe(path);
      expect(sent.headers['x-hostile']).toBe(hostile);
      expect(sent.headers['content-type']).toBe('application/json');
      expect(sent.body).toBe(body);
    } finally {
      await target.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lists CLOUD applications in the findings report's application filter", async () => {
    await createApp(tenant, {
      name: 'hosted-shop',
      env: 'production',
      applicationType: 'CLOUD',
      cloudScanTargetURL: 'https://hosted-shop.example',
    });
    await createApp(tenant, { name: 'standard-shop', env: 'production' });
    await openSection(page, 'Findings report');
    const filter = page.getByLabel('Application');
    await filter.getByRole('option', { name: 'standard-shop' }).waitFor({ state: 'attached' });
    expect(await filter.getByRole('option', { name: 'hosted-shop' }).count()).toBe(1);
  });

  it('starts an invitation from the least-privileged role, not Owner', async () => {
    await openSection(page, 'Members');
    const invite = page.locator('details', { hasText: 'Invite a member' });
    await invite.getByText('Invite a member').click();
    const role = invite.getByLabel('Role');
    await role.getByRole('option', { name: 'Owner' }).waitFor({ state: 'attached' });
    expect(await role.inputValue()).toBe('READ_ONLY');
  });

  it('links webhook and Slack messages to the dashboard absolutely, Slack with an Open button; /docs names this server', async () => {
    const slack = await startSlackFake();
    const json = await recordingServer();
    try {
      const appId = await createApp(tenant, { name: 'linked', env: 'dev' });
      await openSection(page, 'Integrations');
      await page.getByRole('button', { name: 'Allow private receivers' }).click();
      await page.getByRole('button', { name: 'Refuse private receivers' }).waitFor();
      await page.getByText('New webhook').click();
      await page.getByLabel('Receiver URL').fill(slack.url);
      await page.getByLabel('Name', { exact: true }).fill('chat');
      await page.getByLabel('Scan started').check();
      await page.getByLabel('Format').selectOption('slack');
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.getByRole('button', { name: 'Done' }).click();
      const hook = await api('POST', `/api/v1/org/${tenant.orgId}/webhooks`, {
        token: tenant.token,
        body: { url: `${json.origin}/hook`, events: ['scanStarted'] },
      });
      expect(hook.status, hook.text).toBe(200);

      const { scanId } = await startScan(tenant.token, appId);
      const scanUrl = `${baseUrl()}/org/${tenant.orgId}/scan/${scanId}`;
      await expect.poll(() => slack.received.length).toBe(1);
      const message = slack.received[0]!;
      expect(message.problems).toEqual([]);
      expect(message.body.blocks).toContainEqual({
        type: 'actions',
        elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open' }, url: scanUrl }],
      });
      await expect.poll(() => json.requests.length).toBe(1);
      expect(JSON.parse(json.requests[0]!.body).scanStarted.scan.scanURL).toBe(scanUrl);
      await page.goto(scanUrl);
      await page.getByRole('heading', { level: 1, name: /^Scan of/ }).waitFor();
      await page.getByRole('link', { name: 'linked' }).waitFor();

      await page.goto(`${baseUrl()}/docs`);
      const servers = page.locator('.servers select');
      await servers.waitFor();
      expect(await servers.inputValue()).toBe(baseUrl());
    } finally {
      await slack.close();
      await json.close();
    }
  });

  it('groups the sections in a column beside the page at a laptop width: Findings, Scans, Applications, Integrations, Settings', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    try {
      await page.goto(`${baseUrl()}/org/${tenant.orgId}/overview`);
      const nav = page.getByRole('navigation', { name: 'Sections' });
      await nav.getByRole('link', { name: 'Overview' }).waitFor();
      const groups: Record<string, string[]> = {};
      for (const list of await nav.getByRole('list').all()) {
        const name = await list.evaluate(
          (l) => document.getElementById(l.getAttribute('aria-labelledby') ?? '')?.textContent ?? '',
        );
        groups[name] = await list.getByRole('link').allInnerTexts();
      }
      expect(groups).toEqual({
        Findings: ['Overview', 'Triage inbox', 'Findings report'],
        Scans: ['Scans', 'Scanner agents', 'API descriptions'],
        Applications: ['Applications', 'Environments', 'Teams'],
        Integrations: ['Integrations', 'Issue trackers'],
        Settings: ['Members', 'Audit log', 'Settings'],
      });
      // Beside the page, and the header one line high.
      const [navBox, mainBox, headerBox] = await Promise.all(
        [nav, page.locator('main'), page.locator('header.top')].map((l) => l.boundingBox()),
      );
      expect(navBox!.x + navBox!.width).toBeLessThanOrEqual(mainBox!.x);
      expect(headerBox!.height).toBeLessThan(60);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('moves through the sections with the arrow keys, and asks in a modal dialog that keeps the focus until it closes', async () => {
    const appId = await createApp(tenant, { name: 'to-confirm', env: 'dev' });
    const errors: string[] = [];
    const onConsole = (m: { type: () => string; text: () => string }) => {
      if (m.type() === 'error') errors.push(m.text()); // a CSP refusal of a <style> a dialog added would be one
    };
    const focused = () => page.evaluate(() => document.activeElement?.textContent);
    page.on('console', onConsole);
    try {
      await page.goto(`${baseUrl()}/org/${tenant.orgId}/overview`);
      // Settled first: a render the page's first answers cause must not take the focus from the menu meanwhile.
      await page.waitForLoadState('networkidle');
      const nav = page.getByRole('navigation', { name: 'Sections' });
      await nav.getByRole('link', { name: 'Overview' }).focus();
      await expect.poll(focused).toBe('Overview');
      for (const [key, to] of [
        ['ArrowDown', 'Triage inbox'],
        ['End', 'Settings'],
        ['ArrowUp', 'Audit log'],
        ['Home', 'Overview'],
      ]) {
        await page.keyboard.press(key!);
        await expect.poll(focused, { message: `${key} moves to ${to}` }).toBe(to);
      }

      await page.goto(`${baseUrl()}/org/${tenant.orgId}/app/${appId}`);
      const trigger = page.getByRole('button', { name: 'Delete application' });
      await trigger.click();
      const dialog = page.getByRole('dialog', { name: 'Delete to-confirm?' });
      await dialog.waitFor();
      await expectAccessible(page, 'a confirm dialog');
      // Focus starts inside and stays there however far Tab goes; the page behind is hidden from screen readers.
      for (let i = 0; i < 6; i++) {
        expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
        await page.keyboard.press('Tab');
      }
      expect(await page.getByRole('navigation', { name: 'Sections' }).count()).toBe(0); // aria-hidden meanwhile
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      expect(await trigger.evaluate((b) => b === document.activeElement)).toBe(true);
      // Cancel closes it too, and nothing was deleted.
      await trigger.click();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect((await api('GET', `/api/v1/app/${appId}`, { token: tenant.token })).status).toBe(200);
    } finally {
      page.off('console', onConsole);
    }
    expect(errors).toEqual([]);
  });

  it('logs no console error and has no serious or critical accessibility violation on the main pages', async () => {
    const appId = await createApp(tenant, { name: 'walked', env: 'dev' });
    const { scanId, envId } = await startScan(tenant.token, appId);
    await reportAlerts(tenant.token, scanId, [alert('10038', 'High', 2)]);
    await completeScan(tenant.token, scanId);
    const found = await api('GET', `/api/v1/scan/${scanId}/alert/10038`, { token: tenant.token });
    const uri = found.body.applicationScanAlertUris[0];
    // A CLOUD application that never had a hosted scan or a profile: its pages ask for the last run.
    const cloudId = await createApp(tenant, {
      name: 'walked-cloud',
      env: 'production',
      applicationType: 'CLOUD',
      cloudScanTargetURL: 'https://walked-cloud.example',
    });
    const errors: string[] = [];
    const inaccessible: string[] = [];
    let at = '';
    const onConsole = (m: { type: () => string; text: () => string }) => {
      if (m.type() === 'error') errors.push(`${at}: ${m.text()}`);
    };
    const onPageError = (e: Error) => errors.push(`${at}: ${e.message}`);
    page.on('console', onConsole);
    page.on('pageerror', onPageError);
    try {
      for (const [path, heading] of [
        ['overview', 'Overview'],
        ['executive-report', /^Security report/],
        ['apps', 'Applications'],
        [`app/${appId}`, 'walked'],
        [`app/${appId}/env/${envId}`, /dev/],
        ['envs', 'Environments'],
        ['scans', 'Scans'],
        [`scan/${scanId}`, /^Scan of/],
        [`scan/${scanId}/alert/10038`, /Plugin 10038/],
        [`scan/${scanId}/finding/${uri.alertUriId}/${uri.msgId}?plugin=10038&page=0`, /^Finding at/],
        ['report', 'Findings report'],
        ['inbox', 'Triage inbox'],
        ['teams', 'Teams'],
        ['audit', 'Audit log'],
        ['hosted', 'API descriptions'],
        ['devices', 'Scanner agents'],
        ['members', 'Members'],
        ['integrations', 'Integrations'],
        ['integrations/trackers', 'Issue trackers'],
        ['settings', 'Settings'],
      ] as const) {
        at = path;
        await page.goto(`${baseUrl()}/org/${tenant.orgId}/${path}`);
        await page.getByRole('heading', { level: 1, name: heading }).first().waitFor();
        await page.waitForLoadState('networkidle');
        await expectAccessible(page, path).catch((error: Error) => inaccessible.push(error.message));
      }
      at = 'the CLOUD application and its environment';
      await page.goto(`${baseUrl()}/org/${tenant.orgId}/app/${cloudId}`);
      await page.getByRole('heading', { level: 1, name: 'walked-cloud' }).waitFor();
      await page.waitForLoadState('networkidle');
      await page.getByRole('link', { name: 'production', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'production' }).waitFor();
      await page.getByText(/^No hosted scan yet\./).waitFor();
      await page.waitForLoadState('networkidle');
    } finally {
      page.off('console', onConsole);
      page.off('pageerror', onPageError);
    }
    expect(errors).toEqual([]);
    expect(inaccessible).toEqual([]);
  });
});
