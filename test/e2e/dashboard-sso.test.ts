import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { newTeam, readTeam } from '../integration/team-helpers.ts';
import { startOidcProvider, type RunningProvider } from '../integration/oidc-helpers.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { expectAccessible, launchBrowser } from './browser.ts';

// Single sign-on in the dashboard (docs/IDENTITY.md "Single sign-on"), in Chromium, against a real OpenID Connect
// provider on loopback (oidc-provider with its development login and consent pages): the sign-in link, the
// provider's login and consent, the callback page, the user provisioned with the team its group maps to, the
// settings section, then sign-out, after which the session's token is refused.

vi.setConfig({ testTimeout: 240_000, expect: { poll: { timeout: 10_000 } } });

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tenant: Tenant;
let provider: RunningProvider;
let teamId: string;

beforeAll(async () => {
  await ensureWebBuild();
  [browser, tenant, provider] = await Promise.all([
    launchBrowser(),
    createTenant(),
    startOidcProvider(`${baseUrl()}/sso/callback`, {
      carol: { email: 'carol@sso-dashboard.test', name: 'Carol', groups: ['security', 'hawk-admins'] },
    }),
  ]);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  const allowed = await api('PUT', `/api/v1/org/${tenant.orgId}/integrations/settings`, {
    token: tenant.token,
    body: { allowPrivateNetworks: true },
  });
  expect(allowed.status, allowed.text).toBe(200);
  teamId = (await newTeam(tenant.orgId, tenant.token, { name: `security-${Date.now()}` })).id;
  const configured = await api('PUT', `/api/v1/org/${tenant.orgId}/sso`, {
    token: tenant.token,
    body: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      redirectUri: `${baseUrl()}/sso/callback`,
      groupRoles: [{ group: 'hawk-admins', role: 'ADMIN' }],
      groupTeams: [{ group: 'security', teamId }],
    },
  });
  expect(configured.status, configured.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await provider?.close();
});

describe('dashboard single sign-on', () => {
  it('signs in through the provider, provisions the user into its team, shows the setting, and signs out', async () => {
    await page.goto(`${baseUrl()}/?org=${tenant.orgId}`);
    await page.getByRole('heading', { name: 'Single sign-on' }).waitFor();
    await expectAccessible(page, 'the sign-in page with single sign-on');
    await page.getByRole('button', { name: 'Continue with single sign-on' }).click();

    // The provider's own pages: login (any password), then consent.
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.locator('input[name="login"]').fill('carol');
    await page.locator('input[name="password"]').fill('any password');
    await page.locator('button[type="submit"]').click();
    await page.locator('input[name="prompt"][value="consent"]').waitFor({ state: 'attached' });
    await page.locator('button[type="submit"]').click();

    // Back at the dashboard: signed in, the code gone from the address bar.
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor(); // the landing page
    expect(page.url()).not.toContain('code=');
    const token = await page.evaluate(() => sessionStorage.getItem('hawk.token'));
    expect(token).toBeTruthy();
    expect(await page.evaluate(() => sessionStorage.getItem('hawk.sso-binding'))).toBeNull();
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    const user = await api('GET', '/api/v1/user', { token: token! });
    expect(user.body.user.external.email).toBe('carol@sso-dashboard.test');
    const team = await readTeam(tenant.orgId, tenant.token, teamId);
    expect(team.users.map((u) => u.userId)).toContain(user.body.user.external.id);

    // An administrator by group: the settings page shows the organization's single sign-on.
    await page.goto(`${baseUrl()}/org/${tenant.orgId}/settings`);
    await page.getByRole('heading', { name: 'Single sign-on', level: 2 }).waitFor();
    await expect.poll(() => page.getByTestId('sso-link').innerText()).toContain(`?org=${tenant.orgId}`);
    await expect.poll(() => page.getByLabel('Issuer URL').inputValue()).toBe(provider.issuer);
    expect(await page.getByLabel('Client secret').inputValue()).toBe('');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You signed out.').waitFor();
    await expect.poll(async () => (await api('GET', '/api/v1/user', { token: token! })).status).toBe(401);
    expect((await api('GET', '/api/v1/auth/refresh-token', { token: token! })).status).toBe(401);
  });
});
