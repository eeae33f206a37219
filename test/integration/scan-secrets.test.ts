import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { createApp } from './scan-helpers.ts';
import { permissionsOfRole } from '../../shared/context/roles.ts';
import { keys } from '../../shared/db/keys.ts';
import { getItem } from '../../shared/db/query.ts';
import { allowScanDomain } from '../../shared/applications/scan-domains.ts';

// Scan secrets (docs/HOSTED-SCANS.md, "Scan secrets"): write-only values per application and per organization,
// sealed at rest, listed by name, audited without their value, and invisible to other organizations.

const as = (tenant: Pick<Tenant, 'token'>) => ({ token: tenant.token });
const appSecrets = (appId: string) => `/api/v1/app/${appId}/secrets`;
const orgSecrets = (orgId: string) => `/api/v1/org/${orgId}/secrets`;
const secretValue = () => `pw-${crypto.randomUUID()}`;

describe('scan secrets', () => {
  it("an application's secret is set (204), listed by name only, sealed at rest, replaced and removed", async () => {
    const owner = await createTenant();
    const appId = await createApp(owner);
    const value = secretValue();
    const set = await api('PUT', `${appSecrets(appId)}/HAWK_SCAN_PASSWORD`, { ...as(owner), body: { value } });
    expect(set.status, set.text).toBe(204);
    expect(set.text).toBe('');

    const listed = await api('GET', appSecrets(appId), as(owner));
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.secrets).toEqual([{ name: 'HAWK_SCAN_PASSWORD', updatedAt: expect.any(String) }]);
    expect(listed.text).not.toContain(value);

    const stored = await getItem(keys.applicationScanSecret(appId, 'HAWK_SCAN_PASSWORD'));
    expect(JSON.stringify(stored)).not.toContain(value);
    expect(stored!.sealedValue).toMatch(/^v1\./);

    const replaced = await api('PUT', `${appSecrets(appId)}/HAWK_SCAN_PASSWORD`, {
      ...as(owner),
      body: { value: secretValue() },
    });
    expect(replaced.status).toBe(204);
    expect((await getItem(keys.applicationScanSecret(appId, 'HAWK_SCAN_PASSWORD')))!.sealedValue).not.toBe(
      stored!.sealedValue,
    );

    const audit = await api('GET', `/api/v1/org/${owner.orgId}/audit?sortDir=desc&pageSize=10`, as(owner));
    const entries = audit.body.auditRecords.filter((entry: { payload: string }) =>
      entry.payload.includes('scanSecret'),
    );
    expect(entries.map((entry: { payload: string }) => JSON.parse(entry.payload).change)).toEqual([
      'replaced',
      'added',
    ]);
    expect(audit.text).not.toContain(value);

    expect((await api('DELETE', `${appSecrets(appId)}/HAWK_SCAN_PASSWORD`, as(owner))).status).toBe(204);
    expect((await api('GET', appSecrets(appId), as(owner))).body.secrets ?? []).toEqual([]);
    const again = await api('DELETE', `${appSecrets(appId)}/HAWK_SCAN_PASSWORD`, as(owner));
    expect(again.status).toBe(404);
    expect(again.body.message).toContain('no scan secret named HAWK_SCAN_PASSWORD');
  });

  it("an organization's secret is set, listed and removed the same way", async () => {
    const owner = await createTenant();
    const value = secretValue();
    expect(
      (await api('PUT', `${orgSecrets(owner.orgId)}/SHARED_TOKEN`, { ...as(owner), body: { value } })).status,
    ).toBe(204);
    const listed = await api('GET', orgSecrets(owner.orgId), as(owner));
    expect(listed.body.secrets.map((secret: { name: string }) => secret.name)).toEqual(['SHARED_TOKEN']);
    expect(listed.text).not.toContain(value);
    expect(JSON.stringify(await getItem(keys.organizationScanSecret(owner.orgId, 'SHARED_TOKEN')))).not.toContain(
      value,
    );
    expect((await api('DELETE', `${orgSecrets(owner.orgId)}/SHARED_TOKEN`, as(owner))).status).toBe(204);
  });

  it('bad names, values and unknown fields answer 400 naming them, and store nothing', async () => {
    const owner = await createTenant();
    const appId = await createApp(owner);
    const cases: [string, unknown, string][] = [
      ['1ABC', { value: 'x' }, 'name: must be a variable name'],
      ['A-B', { value: 'x' }, 'name: must be a variable name'],
      ['A'.repeat(129), { value: 'x' }, 'name: must be at most 128 characters'],
      ['OK', { value: '' }, 'value: must not be empty'],
      ['OK', { value: 'x'.repeat(8193) }, 'value: must be at most 8192 characters'],
      ['OK', { value: 'x', scope: 'all' }, 'body.scope: unknown field'],
      ['OK', {}, 'value'],
    ];
    for (const [name, body, message] of cases) {
      const out = await api('PUT', `${appSecrets(appId)}/${name}`, { ...as(owner), body });
      expect(out.status, `${name} ${JSON.stringify(body).slice(0, 80)}: ${out.text}`).toBe(400);
      expect(out.body.message).toContain(message);
    }
    expect((await api('GET', appSecrets(appId), as(owner))).body.secrets ?? []).toEqual([]);
  });

  it('a read-only member lists names but sets and removes nothing', async () => {
    const owner = await createTenant();
    const appId = await createApp(owner);
    const reader = await addUserTo(owner.orgId, permissionsOfRole('READ_ONLY'));
    await api('PUT', `${appSecrets(appId)}/HAWK_SCAN_PASSWORD`, { ...as(owner), body: { value: secretValue() } });
    expect((await api('GET', appSecrets(appId), as(reader))).body.secrets).toHaveLength(1);
    const denied = await api('PUT', `${appSecrets(appId)}/HAWK_SCAN_PASSWORD`, { ...as(reader), body: { value: 'x' } });
    expect(denied.status).toBe(401);
    expect((await api('DELETE', `${appSecrets(appId)}/HAWK_SCAN_PASSWORD`, as(reader))).status).toBe(401);
    expect((await api('PUT', `${orgSecrets(owner.orgId)}/X`, { ...as(reader), body: { value: 'x' } })).status).toBe(
      401,
    );
  });

  // An application of another organization is unknown (404); an organization the caller is not a member of is
  // refused as every organization operation refuses it (401, docs/API.md, Errors): the same answer either way.
  it("another organization's member gets the same refusal whether or not the secret exists, and changes nothing", async () => {
    const owner = await createTenant();
    const appId = await createApp(owner);
    await api('PUT', `${appSecrets(appId)}/HAWK_SCAN_PASSWORD`, { ...as(owner), body: { value: secretValue() } });
    await api('PUT', `${orgSecrets(owner.orgId)}/HAWK_SCAN_PASSWORD`, { ...as(owner), body: { value: secretValue() } });
    const stranger = await createTenant();
    for (const name of ['HAWK_SCAN_PASSWORD', 'NOT_THERE']) {
      for (const [method, path, body, status] of [
        ['GET', appSecrets(appId), undefined, 404],
        ['PUT', `${appSecrets(appId)}/${name}`, { value: 'overwritten' }, 404],
        ['DELETE', `${appSecrets(appId)}/${name}`, undefined, 404],
        ['GET', orgSecrets(owner.orgId), undefined, 401],
        ['PUT', `${orgSecrets(owner.orgId)}/${name}`, { value: 'overwritten' }, 401],
        ['DELETE', `${orgSecrets(owner.orgId)}/${name}`, undefined, 401],
      ] as const) {
        const out = await api(method, path, { ...as(stranger), ...(body ? { body } : {}) });
        expect(out.status, `${method} ${path}: ${out.text}`).toBe(status);
        expect(out.text).not.toContain(name);
      }
    }
    const listed = await api('GET', appSecrets(appId), as(owner));
    expect(listed.body.secrets.map((secret: { name: string }) => secret.name)).toEqual(['HAWK_SCAN_PASSWORD']);
    expect((await api('GET', orgSecrets(owner.orgId), as(owner))).body.secrets).toHaveLength(1);
  });
});

describe("the agent's run and its scan secrets", () => {
  async function cloudApp(tenant: Tenant) {
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const out = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      ...as(tenant),
      body: {
        name: `cloud-${Date.now()}`,
        env: 'production',
        applicationType: 'CLOUD',
        cloudScanTargetURL: 'http://127.0.0.1:9/',
      },
    });
    expect(out.status, out.text).toBe(200);
    return out.body.applicationId as string;
  }
  const config = [
    'app:',
    '  env: production',
    '  host: http://127.0.0.1:9/',
    '  authentication:',
    '    usernamePassword:',
    '      type: FORM',
    '      loginPath: /login',
    '      usernameField: username',
    '      passwordField: password',
    '      scanUsername: ${SCAN_USER}',
    '      scanPassword: ${SCAN_PASSWORD}',
    '',
  ].join('\n');

  it("the agent that takes the run receives the referenced secrets, the application's before the organization's, and nothing else", async () => {
    const owner = await createTenant();
    const appId = await cloudApp(owner);
    const put = (path: string, value: string) => api('PUT', path, { ...as(owner), body: { value } });
    await put(`${orgSecrets(owner.orgId)}/SCAN_USER`, 'org-user');
    await put(`${orgSecrets(owner.orgId)}/SCAN_PASSWORD`, 'org-password');
    await put(`${orgSecrets(owner.orgId)}/NOT_REFERENCED`, 'org-other');
    await put(`${appSecrets(appId)}/SCAN_PASSWORD`, 'app-password');
    await put(`${appSecrets(appId)}/ALSO_NOT_REFERENCED`, 'app-other');
    const device = await api('POST', `/api/v1/org/${owner.orgId}/perch/devices`, {
      ...as(owner),
      body: { name: 'agent', engines: ['wapiti'] },
    });
    const deviceId = device.body.deviceId as string;
    const started = await api('POST', `/api/v1/app/${appId}/perch/start`, {
      ...as(owner),
      body: { command: { command: 'START', config }, env: 'production' },
    });
    expect(started.status, started.text).toBe(200);
    const polled = await api('POST', `/api/v1/org/${owner.orgId}/perch/devices/${deviceId}/poll`, {
      ...as(owner),
      body: { waitSeconds: 0 },
    });
    expect(polled.body.command.scanKey).toBe(started.body.scanKey);
    // The offer carries the configuration as stored (references), never a value.
    expect(polled.text).not.toMatch(/org-|app-/);
    const ackPath = `/api/v1/org/${owner.orgId}/perch/devices/${deviceId}/commands/${started.body.scanKey}/ack`;
    const taken = await api('POST', ackPath, { ...as(owner), body: { applicationId: appId } });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body).toEqual({
      acknowledged: true,
      alreadyAcknowledged: false,
      secrets: { SCAN_USER: 'org-user', SCAN_PASSWORD: 'app-password' },
    });
    // Acknowledged again (a command delivered twice), or read by anyone else: no values.
    const again = await api('POST', ackPath, { ...as(owner), body: { applicationId: appId } });
    expect(again.body).toMatchObject({ acknowledged: true, alreadyAcknowledged: true });
    expect(again.body.secrets ?? {}).toEqual({});
    const status = await api('GET', `/api/v1/app/${appId}/perch/status`, as(owner));
    expect(status.text).not.toMatch(/org-|app-/);
  });
  // A configuration sent with the start says where its requests go: it may carry only stored secrets its sender may
  // change, else a scanner key could send the organization's passwords to a host of its choosing (security review).
  it('a configuration sent with the start receives only the stored secrets its sender may change (403, nothing queued)', async () => {
    const owner = await createTenant();
    const appId = await cloudApp(owner);
    await api('PUT', `${orgSecrets(owner.orgId)}/SCAN_USER`, { ...as(owner), body: { value: 'org-user' } });
    await api('PUT', `${appSecrets(appId)}/SCAN_PASSWORD`, { ...as(owner), body: { value: 'app-password' } });
    const start = (tenant: Pick<Tenant, 'token'>, text: string) =>
      api('POST', `/api/v1/app/${appId}/perch/start`, {
        ...as(tenant),
        body: { command: { command: 'START', config: text }, env: 'production' },
      });
    const scanner = await addUserTo(owner.orgId, permissionsOfRole('SCANNER'));
    const refused = await start(scanner, config);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.message).toMatch(/\$\{SCAN_USER\} is the organization's scan secret.*write:scan_config/);
    const configurer = await addUserTo(owner.orgId, [...permissionsOfRole('SCANNER'), 'write:scan_config']);
    const alsoRefused = await start(configurer, config);
    expect(alsoRefused.status, alsoRefused.text).toBe(403);
    expect(alsoRefused.body.message).toMatch(/\$\{SCAN_PASSWORD\} is the application's scan secret.*write:application/);
    // Nothing was queued: the configurer's start of the secrets it may change is the application's one run.
    const started = await start(configurer, config.replace('${SCAN_PASSWORD}', '${SCAN_USER}'));
    expect(started.status, started.text).toBe(200);
    const device = await api('POST', `/api/v1/org/${owner.orgId}/perch/devices`, {
      ...as(configurer),
      body: { name: 'agent', engines: ['wapiti'] },
    });
    const deviceId = device.body.deviceId as string;
    const polled = await api('POST', `/api/v1/org/${owner.orgId}/perch/devices/${deviceId}/poll`, {
      ...as(configurer),
      body: { waitSeconds: 0 },
    });
    expect(polled.body.command.scanKey).toBe(started.body.scanKey);
    const ack = `/api/v1/org/${owner.orgId}/perch/devices/${deviceId}/commands/${started.body.scanKey}/ack`;
    const taken = await api('POST', ack, { ...as(configurer), body: { applicationId: appId } });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.secrets).toEqual({ SCAN_USER: 'org-user' });
  });
});
