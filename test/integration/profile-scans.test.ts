import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { auditTypes } from './app-helpers.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';
import { slotsOf } from '../../shared/perch/repository.ts';
import { startAgent } from '../../scanner/src/agent/agent.ts';
import { carryOutProfile } from '../../scanner/src/agent/profile-run.ts';
import { serviceReadingLogAtEnd } from './watched-service.ts';
import {
  API_DESCRIPTION_PATH,
  startFormTarget,
  startApiTarget,
  type Target,
} from '../../scanner/test/profile-targets.ts';
import { auditEntriesOf, download } from './hosted-assets-helpers.ts';

// Profile scans through the real service (docs/PROFILE-SCANS.md): launchProfileScan queues a run on the hosted-scan
// channel, a real agent (in this process) takes it, probes a loopback target and uploads the result, and the
// Profile Scans operations read it.

let form: Target;
let apiTarget: Target;
let validApi: Target;
beforeAll(async () => {
  [form, apiTarget, validApi] = await Promise.all([
    startFormTarget(),
    startApiTarget(),
    startApiTarget({ validDescription: true }),
  ]);
});
afterAll(() => Promise.all([form.close(), apiTarget.close(), validApi.close()]));

async function cloudApp(tenant: Tenant, target: string) {
  const out = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
    token: tenant.token,
    body: { name: `cloud-${Date.now()}`, env: 'production', applicationType: 'CLOUD', cloudScanTargetURL: target },
  });
  expect(out.status, out.text).toBe(200);
  return out.body.applicationId as string;
}
const launch = (tenant: Tenant, appId: string) =>
  api('POST', `/api/v1/app/${appId}/perch/profile-scan`, { token: tenant.token });
const latest = (tenant: Tenant, appId: string) =>
  api('GET', `/api/v1/app/${appId}/profile/results`, { token: tenant.token });

/** Runs a one-shot agent of the tenant's organization until it carried out one run. */
async function runAgentOnce(tenant: Tenant) {
  const lines: string[] = [];
  const agent = await startAgent({
    url: baseUrl(),
    apiKey: tenant.apiKey,
    orgId: tenant.orgId,
    name: 'profile-agent',
    engines: [],
    once: true,
    maxIdleMs: 20_000,
    echo: (line) => lines.push(line),
  });
  await agent.done;
  return lines;
}

describe('launchProfileScan', { timeout: 120_000 }, () => {
  it('refuses a STANDARD application and an unverified target (400), another organization (404), a reader (401)', async () => {
    const tenant = await createTenant();
    const standard = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: { name: 'standard', env: 'production' },
    });
    const notCloud = await launch(tenant, standard.body.applicationId);
    expect(notCloud.status).toBe(400);
    expect(notCloud.body.message).toMatch(/not a CLOUD application/);
    const appId = await cloudApp(tenant, form.url);
    const unverified = await launch(tenant, appId);
    expect(unverified.status).toBe(400);
    expect(unverified.body.message).toMatch(/not verified/);
    expect((await launch(await createTenant(), appId)).status).toBe(404);
    const reader = await addUserTo(tenant.orgId, ['read:scan']);
    expect((await launch({ ...tenant, ...reader }, appId)).status).toBe(401);
    expect((await latest({ ...tenant, ...reader }, appId)).status).toBe(404);
    expect((await latest(tenant, appId)).status).toBe(404);
    expect(await auditTypes(tenant)).not.toContain('SCAN_STARTED');
  });

  it('an agent profiles the target; the result is read latest, by id, in the list and in bulk', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant, form.url);
    expect((await latest(tenant, appId)).status).toBe(404);

    const launched = await launch(tenant, appId);
    expect(launched.status, launched.text).toBe(200);
    const scanKey = launched.body.scanKey as string;
    expect(scanKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const again = await launch(tenant, appId);
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/a profile scan is already running/);
    expect(await auditTypes(tenant)).toContain('SCAN_STARTED');

    const lines = await runAgentOnce(tenant);
    expect(lines.join('\n')).toContain(`start: profile ${scanKey}`);
    const result = await latest(tenant, appId);
    expect(result.status, result.text).toBe(200);
    expect(result.body).toMatchObject({
      scanId: scanKey,
      classification: 'APP_PUBLIC_WEBSITE',
      discoveredOpenapiSpecPath: '',
      authConfigPresent: true,
    });
    expect(result.body.suggestedScanConfig).toContain(`applicationId: ${appId}`);
    expect(result.body.suggestedScanConfig).toContain('env: production');
    expect(result.body.suggestedScanConfig).toContain('antiCsrfParam: csrf_token');
    expect(result.body.authMarkers.map((m: { type: string }) => m.type)).toContain('AUTH_LOGIN_FORM');
    // The dashboard's "Save as the environment's configuration" stores it as it is, placeholders included.
    const saved = await api('POST', `/api/v1/configuration/${tenant.orgId}/update`, {
      token: tenant.token,
      body: { name: 'shop-production', conf: result.body.suggestedScanConfig, configType: 'APP' },
    });
    expect(saved.status, saved.text).toBe(200);
    // int64 is a JSON string (the proto3 JSON mapping, docs/COMPATIBILITY.md "Compatibility choices").
    expect(Number(result.body.timestamp)).toBeGreaterThan(Date.now() - 60_000);

    // The run ended with the upload, and its log was stored.
    const status = await api('GET', `/api/v1/app/${appId}/perch/status`, { token: tenant.token });
    expect(status.body.device.status).toBe('HOSTED_SCANNER_DISCONNECTED');
    // It held one of the organization's scan slots while it ran, and gave it back with its result.
    expect((await slotsOf(tenant.orgId)).running).toBe(0);
    const log = await api('GET', `/api/v1/app/${appId}/perch/log`, { token: tenant.token });
    expect(log.body.log).toContain('result stored');

    const byId = await api('GET', `/api/v1/app/${appId}/profile/results/${scanKey}`, { token: tenant.token });
    expect(byId.body).toEqual(result.body);
    const missing = await api('GET', `/api/v1/app/${appId}/profile/results/${crypto.randomUUID()}`, {
      token: tenant.token,
    });
    expect(missing.status).toBe(404);

    // A second profile: newest first; limit bounds the list.
    const second = await launch(tenant, appId);
    expect(second.status, second.text).toBe(200);
    await runAgentOnce(tenant);
    const list = await api('GET', `/api/v1/app/${appId}/profile/results/list`, { token: tenant.token });
    expect(list.body.profileScanResults.map((r: { scanId: string }) => r.scanId)).toEqual([
      second.body.scanKey,
      scanKey,
    ]);
    const one = await api('GET', `/api/v1/app/${appId}/profile/results/list?limit=1`, { token: tenant.token });
    expect(one.body.profileScanResults.map((r: { scanId: string }) => r.scanId)).toEqual([second.body.scanKey]);
    const tooMany = await api('GET', `/api/v1/app/${appId}/profile/results/list?limit=51`, { token: tenant.token });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toMatch(/limit/);

    // Bulk: per application SUCCESS, NOT_FOUND (no result, or not the caller's) or ERROR (not an id).
    const other = await createTenant();
    const othersApp = await cloudApp(other, apiTarget.url);
    const empty = await cloudApp(tenant, apiTarget.url);
    const bulk = await api('POST', `/api/v1/org/${tenant.orgId}/profile/results`, {
      token: tenant.token,
      body: { applicationIds: [appId, empty, othersApp, 'not-an-id'] },
    });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.results[appId]).toMatchObject({ status: 'SUCCESS', result: { scanId: second.body.scanKey } });
    expect(bulk.body.results[empty].status).toBe('NOT_FOUND');
    expect(bulk.body.results[othersApp]).toEqual({
      status: 'NOT_FOUND',
      errorMessage: `application ${othersApp} not found`,
    });
    expect(bulk.body.results['not-an-id'].status).toBe('ERROR');
    expect((await latest(other, appId)).status).toBe(404);
  });

  it('an API target: the discovered description and the JSON login reach the stored result', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant, apiTarget.url);
    expect((await launch(tenant, appId)).status).toBe(200);
    await runAgentOnce(tenant);
    const result = await latest(tenant, appId);
    expect(result.body).toMatchObject({
      classification: 'APP_API_WITH_AUTH',
      discoveredOpenapiSpecPath: '/docs/v2/orders-api.json',
      score: 'TESTABILITY_HIGH',
    });
    expect(result.body.suggestedScanConfig).toContain('type: JSON');
  });

  it("stores the run's log before the result that ends the run: whoever sees the end reads the whole log", async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant, form.url);
    const { scanKey } = (await launch(tenant, appId)).body;
    const device = await api('POST', `/api/v1/org/${tenant.orgId}/perch/devices`, {
      token: tenant.token,
      body: { name: 'profile-agent' },
    });
    const deviceId = device.body.deviceId as string;
    const devicePath = `/api/v1/org/${tenant.orgId}/perch/devices/${deviceId}`;
    const polled = await api('POST', `${devicePath}/poll`, { token: tenant.token, body: { waitSeconds: 0 } });
    const command = polled.body.command;
    expect(command).toMatchObject({ command: 'PROFILE_START', scanKey });
    const taken = await api('POST', `${devicePath}/commands/${command.commandId}/ack`, {
      token: tenant.token,
      body: { applicationId: appId },
    });
    expect(taken.status, taken.text).toBe(200);
    const storedLog = async () =>
      (await api('GET', `/api/v1/app/${appId}/perch/log`, { token: tenant.token })).body.log as string;
    // The agent's calls to the service, with the stored log read just before the result's upload ends the run.
    const watched = serviceReadingLogAtEnd(
      tenant.apiKey,
      (method, path) => method === 'PUT' && path.startsWith(`/api/v1/app/${appId}/perch/runs/${scanKey}/profile?`),
      storedLog,
    );
    const outcome = await carryOutProfile(command, {
      api: watched.service,
      deviceId,
      allowPrivate: false,
      signal: new AbortController().signal,
    });
    expect(outcome).toBe('COMPLETED');
    const logAtEnd = watched.logAtEnd();
    expect(logAtEnd).toContain(`profile ${scanKey} of application ${appId}`);
    // Only the line that says the result was stored comes after.
    const log = await storedLog();
    expect(log.startsWith(logAtEnd!), `${logAtEnd}\n---\n${log}`).toBe(true);
    expect(log.slice(logAtEnd!.length)).toMatch(/^\S+ result stored\n$/);
  });
});

describe('the discovered description (useDiscoveredOpenApiSpec)', { timeout: 120_000 }, () => {
  const useSpec = (tenant: Tenant, appId: string, scanId: string) =>
    api('POST', `/api/v1/app/${appId}/profile/results/${scanId}/use-spec`, { token: tenant.token });
  const hosted = (tenant: Tenant, appId: string) =>
    api('GET', `/api/v1/oas/${tenant.orgId}/${appId}`, { token: tenant.token });

  it('an invalid one: the result says why, and it cannot become the hosted description', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant, apiTarget.url);
    const { scanKey } = (await launch(tenant, appId)).body;
    await runAgentOnce(tenant);
    const result = await latest(tenant, appId);
    expect(result.body).toMatchObject({
      discoveredOpenapiSpecPath: API_DESCRIPTION_PATH,
      discoveredOpenapiSpecStatus: 'INVALID',
      discoveredOpenapiSpecVersion: '',
      discoveredOpenapiSpecProblem: '`/paths/api/orders/{id}/get` is missing path parameter(s) for `{id}`.',
    });
    const before = await auditTypes(tenant);
    const refused = await useSpec(tenant, appId, scanKey);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.message).toContain(`(${API_DESCRIPTION_PATH}) is not valid: \`/paths/api/orders/{id}/get\``);
    expect((await hosted(tenant, appId)).status).toBe(404);
    expect(await auditTypes(tenant)).toEqual(before);
  });

  it('a valid one becomes the hosted description in one step, audited; no description, or no access, changes nothing', async () => {
    const tenant = await createTenant();
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const appId = await cloudApp(tenant, validApi.url);
    const { scanKey } = (await launch(tenant, appId)).body;
    await runAgentOnce(tenant);
    const result = await latest(tenant, appId);
    expect(result.body).toMatchObject({
      discoveredOpenapiSpecPath: API_DESCRIPTION_PATH,
      discoveredOpenapiSpecStatus: 'VALID',
      discoveredOpenapiSpecVersion: '3.0.3',
      discoveredOpenapiSpecProblem: '',
    });
    expect(result.body).not.toHaveProperty('discoveredOpenapiSpec');
    expect((await hosted(tenant, appId)).status).toBe(404);

    // Not for a reader, nor another organization, nor a result that does not exist.
    const reader = await addUserTo(tenant.orgId, ['read:scan', 'read:scan_config']);
    // 403 as uploadOASForApplication answers a caller without write:scan_config.
    expect((await useSpec({ ...tenant, ...reader }, appId, scanKey)).status).toBe(403);
    expect((await useSpec(await createTenant(), appId, scanKey)).status).toBe(404);
    const missing = await useSpec(tenant, appId, crypto.randomUUID());
    expect(missing.status).toBe(404);
    expect(missing.body.message).toMatch(/no profile scan result/);
    const audited = (await auditEntriesOf(tenant.orgId)).length;

    const used = await useSpec(tenant, appId, scanKey);
    expect(used.status, used.text).toBe(200);
    expect(used.body).toMatchObject({ oasId: appId, openapiVersion: '3.0.3', method: 'GET' });
    const stored = await download(used.body.presignedDownloadUrl);
    const served = await (await fetch(`${validApi.url}${API_DESCRIPTION_PATH}`)).text();
    expect(stored.bytes.toString('utf8')).toBe(served);
    expect(Number(used.body.fileSize)).toBe(Buffer.byteLength(served));
    expect((await hosted(tenant, appId)).status).toBe(200);
    const entries = await auditEntriesOf(tenant.orgId);
    expect(entries).toHaveLength(audited + 1);
    const entry = entries.find((e) => e.userActivityType === 'ORGANIZATION_CONFIGURATION_MODIFIED')!;
    expect(JSON.parse(entry.payload)).toMatchObject({
      appId,
      oasId: appId,
      openapiVersion: '3.0.3',
      profileScanId: scanKey,
      sourcePath: API_DESCRIPTION_PATH,
    });

    // A profile that found no description has none to use.
    const formApp = await cloudApp(tenant, form.url);
    const formProfile = (await launch(tenant, formApp)).body.scanKey as string;
    await runAgentOnce(tenant);
    expect((await latest(tenant, formApp)).body.discoveredOpenapiSpecStatus).toBe('');
    const none = await useSpec(tenant, formApp, formProfile);
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/found no API description/);
  });
});
