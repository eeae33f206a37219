import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { cloudAppAt, passwordLoginTarget, runLog, waitForEnd, withAgent } from './hosted-helpers.ts';

// startScan with a saved configuration (docs/HOSTED-SCANS.md, Runs): an organization scan configuration named by
// `scanConfig`, or (ours) the environment's default configuration with `defaultConfig`, each logging in with the
// password its save moved into the scan secrets; the run's log, getScanRunLog and the scan's tag name the
// configuration that ran. Real wapiti against a login target on loopback.

const PASSWORD = `saved-${crypto.randomUUID()}`;
let target: Awaited<ReturnType<typeof passwordLoginTarget>>;
beforeAll(async () => {
  process.env.HAWK_WAPITI_ATTACK_SECONDS = '5';
  target = await passwordLoginTarget(PASSWORD);
});
afterAll(() => target.close());

const authentication = {
  usernamePassword: {
    type: 'FORM',
    loginPath: '/login',
    usernameField: 'username',
    passwordField: 'password',
    scanUsername: 'alice',
    scanPassword: PASSWORD,
  },
  cookieAuthorization: { cookieNames: ['sid'] },
  testPath: { path: '/account', type: 'BODY', success: 'Signed in as' },
};

const startWith = (tenant: Tenant, appId: string, body: Record<string, unknown>) =>
  api('POST', `/api/v1/app/${appId}/perch/start`, {
    token: tenant.token,
    body: { command: { command: 'START' }, env: 'production', ...body },
  });

/** Runs the scan `body` starts to its end; its log, its run and its scan's tags. */
async function scanned(tenant: Tenant, appId: string, body: Record<string, unknown>) {
  const logins = target.logins.length;
  const run = await withAgent(tenant, async () => {
    const started = await startWith(tenant, appId, body);
    expect(started.status, started.text).toBe(200);
    const done = await waitForEnd(tenant, appId);
    expect(done.status, JSON.stringify(done)).toBe('HOSTED_SCANNER_DISCONNECTED');
    return runLog(tenant, appId);
  });
  expect(target.logins.slice(logins), run.log).toContain(`username=alice&password=${PASSWORD}`);
  expect(run.log).toContain('login ok');
  expect(run.log).not.toContain(PASSWORD);
  const alerts = await api('GET', `/api/v1/scan/${run.scanId}/alerts`, { token: tenant.token });
  const tags = alerts.body.applicationScanResults[0].tags as { name: string; value: string }[];
  return { run, tags };
}

describe('"Scan now" with a saved configuration', { timeout: 300_000 }, () => {
  it("scans with an organization scan configuration or the environment's default configuration, naming it", async () => {
    const owner = await createTenant();
    const appId = await cloudAppAt(owner, 'saved-configurations', target.url);
    const saved = await api('POST', `/api/v1/configuration/${owner.orgId}/update`, {
      token: owner.token,
      body: {
        name: 'shop-login',
        conf: JSON.stringify({ app: { env: 'production', host: target.url, authentication } }),
      },
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.movedSecrets).toEqual(['USERNAME_PASSWORD_SCAN_PASSWORD']);

    const organization = await scanned(owner, appId, { scanConfig: 'shop-login' });
    expect(organization.run.configuration).toBe('the organization scan configuration shop-login');
    expect(organization.run.log).toContain('configuration: the organization scan configuration shop-login');
    expect(organization.tags).toContainEqual({
      name: 'HAWK_SCAN_CONFIGURATION',
      value: 'the organization scan configuration shop-login',
    });

    const envs = await api('GET', `/api/v1/app/${appId}/env/list`, { token: owner.token });
    const envId = envs.body.environments[0].environmentId as string;
    const conf = { app: { applicationId: appId, env: 'production', host: target.url, authentication } };
    const savedDefault = await api('POST', `/api/v1/app/${appId}/env/${envId}/config/default`, {
      token: owner.token,
      body: { conf },
    });
    expect(savedDefault.status, savedDefault.text).toBe(200);
    const environment = await scanned(owner, appId, { defaultConfig: true, env: 'PRODUCTION' });
    expect(environment.run.configuration).toBe('the default configuration of environment production');
    expect(environment.run.log).toContain('configuration: the default configuration of environment production');
    expect(environment.tags).toContainEqual({
      name: 'HAWK_SCAN_CONFIGURATION',
      value: 'the default configuration of environment production',
    });
  });

  it('answers 400 naming what is wrong, and starts nothing', async () => {
    const owner = await createTenant();
    const appId = await cloudAppAt(owner, 'bad-choices', target.url);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ defaultConfig: true, scanConfig: 'x' }, /^defaultConfig: give one configuration/],
      [{ defaultConfig: true, command: { command: 'START', config: 'app: {}' } }, /^defaultConfig: give one/],
      [{ defaultConfig: true, env: undefined }, /^env: defaultConfig scans with an environment's default/],
      [{ defaultConfig: true, env: 'staging' }, /^env: application .* has no environment named staging/],
      [{ defaultConfig: 'yes' }, /defaultConfig/],
      [{ scanConfig: 'missing' }, /^scanConfig: no scan configuration named missing/],
    ];
    for (const [body, message] of cases) {
      const refused = await startWith(owner, appId, body);
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.message).toMatch(message);
    }
    const status = await api('GET', `/api/v1/app/${appId}/perch/status`, { token: owner.token });
    expect(status.body).toEqual({});
  });
});
