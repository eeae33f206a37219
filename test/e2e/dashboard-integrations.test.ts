import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser, openSection, signIn } from './browser.ts';

// The dashboard's Integrations page (docs/WEBHOOKS.md) in Chromium: allow loopback receivers, create a webhook to a
// receiver on loopback (its secret shown once), send a test and read the outcome, find it in the delivery log,
// redeliver it, edit and delete the subscription.

vi.setConfig({ testTimeout: 240_000, expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
const receiver = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    received.push({ headers: request.headers, body });
    response.writeHead(200, { 'content-type': 'text/plain' }).end('received by the test receiver');
  });
});

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant] = await Promise.all([
    launchBrowser(),
    createTenant(),
    new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve)),
  ]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('dashboard integrations', () => {
  it('creates a webhook, sends a test, shows it in the delivery log, redelivers it, edits and deletes it', async () => {
    await signIn(page, tenant.apiKey);
    await openSection(page, 'Integrations');
    await page.getByText('No webhooks yet.').waitFor();

    await page.getByRole('button', { name: 'Allow private receivers' }).click();
    await page.getByRole('button', { name: 'Refuse private receivers' }).waitFor();

    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await page.getByText('New webhook').click();
    await page.getByLabel('Receiver URL').fill(url);
    await page.getByLabel('Name', { exact: true }).fill('ci-hook');
    await page.getByLabel('Finding triaged').check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expect.poll(() => page.getByTestId('webhook-secret').innerText()).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Done' }).click();
    const card = page.getByRole('region', { name: 'ci-hook' });
    await card
      .getByText('scanCompleted, findingStatusChanged')
      .or(card.getByText('findingStatusChanged, scanCompleted'))
      .waitFor();
    await expectAccessible(page, 'the integrations page with a webhook');

    await card.getByRole('button', { name: 'Send test to ci-hook' }).click();
    await expect
      .poll(() => card.getByTestId(/^test-outcome-/).innerText())
      .toMatch(/^Test: DELIVERED, HTTP 200 in \d+ ms; the receiver said: received by the test receiver\.$/);
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['x-hawk-event']).toBe('ping');

    await card.getByText('Delivery log of ci-hook').click();
    const log = card.getByRole('table', { name: 'Deliveries of ci-hook, newest first' });
    const first = log.getByRole('row').filter({ hasText: 'ping (test)' });
    await expect.poll(() => first.innerText()).toContain('DELIVERED');
    await first.getByRole('button', { name: /^Redeliver ping/ }).click();
    await expect.poll(() => received.length).toBe(2);
    expect(received[1]!.headers['x-hawk-event-id']).toBe(received[0]!.headers['x-hawk-event-id']);
    expect(received[1]!.body).toBe(received[0]!.body);
    const again = log.getByRole('row').filter({ hasText: '(redelivery)' });
    await expect.poll(() => again.innerText()).toContain('DELIVERED');
    await expectAccessible(page, 'the delivery log');

    await card.getByText('Edit ci-hook').click();
    await card.getByLabel('Enabled').uncheck();
    await card.getByRole('button', { name: 'Save changes' }).click();
    await card.getByText('disabled', { exact: true }).waitFor();

    await card.getByRole('button', { name: 'Delete ci-hook' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete ci-hook' }).click();
    await page.getByText('No webhooks yet.').waitFor();
  });
});
