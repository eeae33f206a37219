import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from '../integration/client.ts';
import { createTenant, type Tenant } from '../integration/fixtures.ts';
import { startAttackTarget, type AttackTarget } from './attack-target.ts';
import { cloudAppAt, findings, loginConfig, waitFor, withAgent } from './hosted-helpers.ts';
import { ensureWebBuild } from '../../scripts/local/web.ts';
import { launchBrowser, signIn } from './browser.ts';

// Retests of one finding (docs/HOSTED-SCANS.md, Retests): an embedded agent attacks the finding's request again with
// the wapiti check that found it, logged in with the configuration of the scan that reported it, against the
// vulnerable shop on loopback. A missing wapiti fails these tests.

let target: AttackTarget;
beforeAll(async () => {
  target = await startAttackTarget();
  process.env.HAWK_SCAN_TEST_TARGET_PASSWORD = 's3cret';
});
afterAll(() => target.stop());

/** One finding as wapiti reports it, behind the login. */
const wapitiFinding = (pluginId: string, uri: string, param: string) => ({
  pluginId,
  name: pluginId,
  severity: 'High',
  description: pluginId,
  cweId: '89',
  references: [],
  uris: [
    {
      uri,
      requestMethod: 'GET',
      param,
      evidence: 'seen by the first scan',
      otherInfo: '',
      requestHeader: '',
      requestBody: '',
      responseHeader: '',
      responseBody: '',
    },
  ],
});

/** A scan of the shop's logged-in area (as a scanner outside the service reports one) with two findings. */
async function scannedShop(tenant: Tenant, appId: string) {
  const { token } = tenant;
  const started = await api('POST', `/api/v1/app/${appId}/scan`, {
    token,
    body: { env: 'production', config: loginConfig(target.url), hawkscanVersion: '4.1.0', host: target.url },
  });
  expect(started.status, started.text).toBe(200);
  const { scanId } = started.body;
  const alerts = [
    // Wapiti reports a finding's path alone, the parameter apart.
    wapitiFinding('wapiti.sql-injection', '/account/products', 'id'),
    wapitiFinding('wapiti.command-execution', '/account/ping', 'host'),
  ];
  expect((await api('POST', `/api/v1/scan/${scanId}/alerts`, { token, body: { alerts } })).status).toBe(200);
  const done = await api('POST', `/api/v1/scan/${scanId}/complete`, { token, body: { status: 'COMPLETED' } });
  expect(done.status, done.text).toBe(200);
  const found = await findings(tenant, scanId);
  return {
    scanId: scanId as string,
    sql: found['wapiti.sql-injection'][0].findingHash,
    exec: found['wapiti.command-execution'][0].findingHash,
  };
}

const retest = (tenant: Tenant, appId: string, hash: string, env = 'production') =>
  api('POST', `/api/v1/app/${appId}/findings/${hash}/retest`, { token: tenant.token, query: { env } });

const readRetest = (tenant: Tenant, appId: string, retestId: string) =>
  api('GET', `/api/v1/app/${appId}/retests/${retestId}`, { token: tenant.token });

async function outcome(tenant: Tenant, appId: string, retestId: string) {
  const read = await waitFor(
    'the retest did not end',
    async () => (await readRetest(tenant, appId, retestId)).body,
    (body) => !['QUEUED', 'RUNNING'].includes(body.status),
    120,
  );
  const log = await api('GET', `/api/v1/app/${appId}/perch/log`, { token: tenant.token, query: { scanKey: retestId } });
  return { ...read, log: log.body.log as string };
}

async function reportRow(tenant: Tenant, findingHash: string) {
  const report = await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, { token: tenant.token });
  expect(report.status, report.text).toBe(200);
  return report.body.findings.find((row: { findingHash: string }) => row.findingHash === findingHash);
}

describe('retests of one finding', { timeout: 300_000 }, () => {
  it('reads FIXED for a finding the target patched, STILL_PRESENT for one it did not', async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'retested shop', target.url);
    const { sql, exec } = await scannedShop(tenant, appId);
    try {
      await withAgent(tenant, async () => {
        // Before the patch the check finds the SQL error again.
        const before = await retest(tenant, appId, sql);
        expect(before.status, before.text).toBe(200);
        const beforeOutcome = await outcome(tenant, appId, before.body.retestId);
        expect(beforeOutcome, beforeOutcome.log).toMatchObject({ status: 'STILL_PRESENT', findingHash: sql });
        expect(beforeOutcome.evidence).not.toBe('');
        expect((await reportRow(tenant, sql)).verifiedFixedAt).toBe('');

        target.patched.add('/products');
        const asked = Date.now();
        const fixed = await retest(tenant, appId, sql);
        expect(fixed.status, fixed.text).toBe(200);
        const fixedOutcome = await outcome(tenant, appId, fixed.body.retestId);
        expect(fixedOutcome, fixedOutcome.log).toMatchObject({
          status: 'FIXED',
          findingHash: sql,
          startedAt: expect.stringMatching(/^\d{4}-/),
          endedAt: expect.stringMatching(/^\d{4}-/),
          evidence: expect.stringContaining('/account/products'),
        });
        // Only the finding's request, with only its check, logged in: seconds, not minutes.
        expect(fixedOutcome.log).toMatch(/-u http:\/\/127\.0\.0\.1:\d+\/account\/products\?id=1 --scope url -m sql /);
        expect(Date.now() - asked).toBeLessThan(60_000);

        const present = await retest(tenant, appId, exec);
        expect(present.status, present.text).toBe(200);
        const presentOutcome = await outcome(tenant, appId, present.body.retestId);
        expect(presentOutcome, presentOutcome.log).toMatchObject({ status: 'STILL_PRESENT', findingHash: exec });
        expect(presentOutcome.evidence).not.toBe('');
        expect(presentOutcome.log).toMatch(/-m exec,shellshock /);
      });
      // FIXED marks the finding fixed and verified in the findings report; STILL_PRESENT keeps it open.
      expect((await reportRow(tenant, sql)).verifiedFixedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect((await reportRow(tenant, exec)).verifiedFixedAt).toBe('');
    } finally {
      target.patched.delete('/products');
    }
  });

  it("refuses bad input, and answers 404 for another organization's application, finding or retest", async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'isolated shop', target.url);
    const { sql } = await scannedShop(tenant, appId);
    const other = await createTenant();
    const otherApp = await cloudAppAt(other, 'other shop', target.url);
    // Another organization: its member reaches neither the application nor, through its own application, the finding.
    expect((await retest(other, appId, sql)).status).toBe(404);
    const viaOwnApp = await retest(other, otherApp, sql);
    expect([viaOwnApp.status, viaOwnApp.body.message]).toEqual([404, expect.stringMatching(/no finding/)]);
    const unknownEnv = await retest(tenant, appId, sql, 'staging');
    expect(unknownEnv.status).toBe(404);
    const badHash = await retest(tenant, appId, 'abc');
    expect([badHash.status, badHash.body.message]).toEqual([400, expect.stringMatching(/findingHash/)]);
    const noEnv = await api('POST', `/api/v1/app/${appId}/findings/${sql}/retest`, { token: tenant.token });
    expect([noEnv.status, noEnv.body.message]).toEqual([400, expect.stringMatching(/env/)]);
    // Queued (no agent runs here): its owner reads it, another organization does not; a second one waits its turn.
    const queued = await retest(tenant, appId, sql);
    expect(queued.status, queued.text).toBe(200);
    expect((await readRetest(tenant, appId, queued.body.retestId)).body).toEqual({
      status: 'QUEUED',
      findingHash: sql,
      startedAt: '',
      endedAt: '',
      evidence: '',
    });
    expect((await readRetest(other, appId, queued.body.retestId)).status).toBe(404);
    expect((await readRetest(other, otherApp, queued.body.retestId)).status).toBe(404);
    expect((await retest(tenant, appId, sql)).status).toBe(409);
    // Stopped, it reads ERROR with the reason.
    expect((await api('POST', `/api/v1/app/${appId}/perch/stop`, { token: tenant.token, body: {} })).status).toBe(200);
    expect((await readRetest(tenant, appId, queued.body.retestId)).body).toMatchObject({
      status: 'ERROR',
      evidence: 'the retest was stopped',
    });
  });

  it("shows a Retest button on the dashboard's finding page, and the outcome", async () => {
    const tenant = await createTenant();
    const appId = await cloudAppAt(tenant, 'shop in the dashboard', target.url);
    const { scanId } = await scannedShop(tenant, appId);
    const alert = await api('GET', `/api/v1/scan/${scanId}/alert/wapiti.command-execution`, { token: tenant.token });
    const uri = alert.body.applicationScanAlertUris[0];
    await ensureWebBuild();
    const browser = await launchBrowser();
    try {
      const page = browser.context.pages()[0] ?? (await browser.context.newPage());
      await signIn(page, tenant.apiKey);
      await withAgent(tenant, async () => {
        await page.goto(
          `${baseUrl()}/org/${tenant.orgId}/scan/${scanId}/finding/${uri.alertUriId}/${uri.msgId}?plugin=wapiti.command-execution&page=0`,
        );
        await page.getByRole('button', { name: 'Retest' }).click();
        await expect
          .poll(
            () =>
              page
                .getByTestId('retest-status')
                .innerText()
                .catch(() => ''),
            { timeout: 60_000 },
          )
          .toMatch(/^Still present: the check found it again/);
      });
    } finally {
      await browser.close();
    }
  });
});
