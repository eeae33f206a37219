import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { auditEntriesOf, download, seedApplication, setMembership } from './hosted-assets-helpers.ts';
import { getProtobuf } from './protobuf-helpers.ts';
import { createApp, startScan } from './scan-helpers.ts';
import { TECH_FLAGS } from '../../shared/policies/catalogue.ts';

// Scan policies: built-in (from ZAP's scan rules), organization and application policies, tech flags.

type Plugin = { pluginId: string; name: string; enabled: boolean; pluginType: string; status: string };
const plugin = (policy: { plugins: Plugin[] }, id: string) => policy.plugins.find((p) => p.pluginId === id);
const enabledIds = (policy: { plugins: Plugin[] }) => policy.plugins.filter((p) => p.enabled).map((p) => p.pluginId);
const auditOf = async (orgId: string) =>
  (await auditEntriesOf(orgId)).map((e) => ({ type: e.userActivityType, payload: JSON.parse(e.payload) }));
const orgPolicy = (tenant: Tenant, scanPolicy: unknown, token = tenant.token) =>
  api('POST', `/api/v1/policy/${tenant.orgId}/update`, { token, body: { scanPolicy } });

describe('built-in scan policies', () => {
  it('lists DEFAULT, API and PASSIVE made of ZAP scan rules, in JSON and protobuf', async () => {
    const tenant = await createTenant({ permissions: ['read:policy'] });
    const all = await api('GET', '/api/v1/policy/all', { token: tenant.token });
    expect(all.status).toBe(200);
    const byName = Object.fromEntries(all.body.scanPolicies.map((p: { name: string }) => [p.name, p]));
    expect(Object.keys(byName)).toEqual(['DEFAULT', 'API', 'PASSIVE']);
    const xss = plugin(byName.DEFAULT, '40012')!;
    expect(xss).toMatchObject({
      name: 'Cross Site Scripting (Reflected)',
      pluginType: 'ACTIVE',
      status: 'ADDON_STATUS_RELEASE',
      enabled: true,
    });
    expect(plugin(byName.DEFAULT, '10038')).toMatchObject({
      name: 'Content Security Policy (CSP) Header Not Set',
      pluginType: 'PASSIVE',
      enabled: true,
    });
    expect(byName.DEFAULT.plugins.every((p: Plugin) => p.enabled)).toBe(true);
    expect(
      byName.PASSIVE.plugins.filter((p: Plugin) => p.enabled).every((p: Plugin) => p.pluginType === 'PASSIVE'),
    ).toBe(true);
    expect(plugin(byName.PASSIVE, '10038')!.enabled).toBe(true);
    expect(plugin(byName.API, '40018')!.enabled).toBe(true); // SQL Injection: in ZAP's API policy
    expect(plugin(byName.API, '40012')!.enabled).toBe(false); // reflected XSS: not
    expect(Object.keys(byName.DEFAULT.techFlags)).toEqual([...TECH_FLAGS]);
    expect(byName.DEFAULT.id).toMatch(/^[0-9a-f-]{36}$/);
    const proto = await getProtobuf('/api/v1/policy/all', tenant.token, 'scanpolicy.ListScanPoliciesResponse');
    expect(proto.decoded).toEqual(all.body);

    const one = await api('GET', '/api/v1/policy', { token: tenant.token, query: { policyName: 'API' } });
    expect(one.body).toEqual({ scanPolicy: byName.API, status: 'OK' });
    expect((await api('GET', '/api/v1/policy', { token: tenant.token })).body.scanPolicy.name).toBe('DEFAULT');
    expect((await api('GET', '/api/v1/policy', { token: tenant.token, query: { policyName: 'NOPE' } })).body).toEqual({
      status: 'NOT_FOUND',
    });
  });

  it('needs read:policy in some organization', async () => {
    const tenant = await createTenant({ permissions: ['read:application'] });
    expect((await api('GET', '/api/v1/policy/all', { token: tenant.token })).status).toBe(401);
    expect((await api('GET', '/api/v1/policy', { token: tenant.token })).status).toBe(401);
    const disabled = await createTenant({ apiAccess: false });
    expect((await api('GET', '/api/v1/policy/all', { token: disabled.token })).status).toBe(401);
  });
});

describe('organization scan policies', () => {
  it('creates, lists, reads, replaces and deletes, auditing each change', async () => {
    const tenant = await createTenant();
    const created = await orgPolicy(tenant, {
      name: 'STRICT_API',
      displayName: 'Strict API',
      description: 'for APIs',
      plugins: [
        { pluginId: '40018', enabled: true },
        { pluginId: '10038', enabled: true },
        { pluginId: '40012', enabled: false },
      ],
      techFlags: { 'OS.Windows': false },
    });
    expect(created.status).toBe(200);
    expect((await orgPolicy(tenant, { name: 'A_FIRST', plugins: [] })).status).toBe(200);

    const listed = await api('GET', `/api/v1/policy/${tenant.orgId}/list`, { token: tenant.token });
    expect(listed.body).toEqual({
      policies: [
        { name: 'A_FIRST', displayName: 'A_FIRST', description: '', organizationId: tenant.orgId },
        { name: 'STRICT_API', displayName: 'Strict API', description: 'for APIs', organizationId: tenant.orgId },
      ],
      totalCount: '2',
      hasNext: false,
      hasPrev: false,
      nextPageToken: '3',
      prevPageToken: '',
    });
    const byDisplay = await api('GET', `/api/v1/policy/${tenant.orgId}/list`, {
      token: tenant.token,
      query: { sortField: 'displayName', sortDir: 'desc', pageSize: 1 },
    });
    expect(byDisplay.body).toMatchObject({ policies: [{ name: 'STRICT_API' }], hasNext: true, nextPageToken: '1' });

    const asset = await api('GET', `/api/v1/policy/${tenant.orgId}/STRICT_API`, { token: tenant.token });
    expect(asset.status).toBe(200);
    const stored = JSON.parse((await download(asset.body.presignedDownloadUrl)).bytes.toString());
    expect(enabledIds(stored).sort()).toEqual(['10038', '40018']);
    expect(stored.techFlags['OS.Windows']).toBe(false);
    expect(stored.techFlags['OS.Linux']).toBe(true);

    expect(
      (await orgPolicy(tenant, { name: 'STRICT_API', plugins: [{ pluginId: '40012', enabled: true }] })).status,
    ).toBe(200);
    const replaced = JSON.parse(
      (
        await download(
          (await api('GET', `/api/v1/policy/${tenant.orgId}/STRICT_API`, { token: tenant.token })).body
            .presignedDownloadUrl,
        )
      ).bytes.toString(),
    );
    expect(enabledIds(replaced)).toEqual(['40012']);
    expect(replaced.displayName).toBe('Strict API'); // kept when not given

    expect((await api('DELETE', `/api/v1/policy/${tenant.orgId}/STRICT_API`, { token: tenant.token })).status).toBe(
      200,
    );
    expect((await api('GET', `/api/v1/policy/${tenant.orgId}/STRICT_API`, { token: tenant.token })).status).toBe(404);
    expect((await api('DELETE', `/api/v1/policy/${tenant.orgId}/STRICT_API`, { token: tenant.token })).status).toBe(
      404,
    );
    const audit = await auditOf(tenant.orgId);
    expect(audit.map((e) => e.type)).toEqual([
      'ORGANIZATION_POLICY_MODIFIED',
      'ORGANIZATION_POLICY_MODIFIED',
      'ORGANIZATION_POLICY_MODIFIED',
      'ORGANIZATION_POLICY_REMOVED',
    ]);
    expect(audit[0].payload).toMatchObject({ policyName: 'STRICT_API', enabledPlugins: 2, created: true });
    expect(audit[3].payload).toEqual({ policyName: 'STRICT_API' });
  });

  it('answers 400 naming unknown plugin ids, flags and bad names, and stores nothing', async () => {
    const tenant = await createTenant();
    const cases: [unknown, string][] = [
      [
        {
          name: 'X',
          plugins: [{ pluginId: '99999', enabled: true }, { pluginId: '40012', enabled: true }, { pluginId: '88888' }],
        },
        'unknown plugin id(s) 99999, 88888',
      ],
      [{ name: 'X', techFlags: { 'OS.Plan9': true, 'OS.Linux': false } }, 'unknown tech flag(s) "OS.Plan9"'],
      [{ name: 'lower' }, 'body.scanPolicy.name'],
      [{ name: 'DEFAULT' }, 'built-in policy name'],
      [{ name: 'X', plugins: [{ pluginId: 'abc' }] }, 'body.scanPolicy.plugins.0.pluginId'],
      [{ name: 'X', techFlags: { 'OS.Linux': 'no' } }, 'body.scanPolicy.techFlags'],
      [undefined, 'body.scanPolicy'],
    ];
    for (const [scanPolicy, message] of cases) {
      const response = await orgPolicy(tenant, scanPolicy);
      expect(response.status, JSON.stringify(scanPolicy)).toBe(400);
      expect(response.body.message).toContain(message);
    }
    expect((await api('GET', `/api/v1/policy/${tenant.orgId}/lower`, { token: tenant.token })).body.message).toContain(
      'policyName',
    );
    expect((await api('GET', `/api/v1/policy/${tenant.orgId}/list`, { token: tenant.token })).body.totalCount).toBe(
      '0',
    );
    expect(await auditOf(tenant.orgId)).toEqual([]);
  });

  it('applies permissions and keeps organizations apart', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    expect((await orgPolicy(tenant, { name: 'MINE' })).status).toBe(200);
    const reader = await addUserTo(tenant.orgId, ['read:policy']);
    expect((await api('GET', `/api/v1/policy/${tenant.orgId}/list`, { token: reader.token })).status).toBe(200);
    expect((await api('GET', `/api/v1/policy/${tenant.orgId}/MINE`, { token: reader.token })).status).toBe(200);
    expect((await orgPolicy(tenant, { name: 'THEIRS' }, reader.token)).status).toBe(401);
    expect((await api('DELETE', `/api/v1/policy/${tenant.orgId}/MINE`, { token: reader.token })).status).toBe(401);
    expect((await api('GET', `/api/v1/policy/${tenant.orgId}/list`, { token: other.token })).status).toBe(401);
    expect((await api('GET', `/api/v1/policy/${tenant.orgId}/MINE`, { token: other.token })).status).toBe(401);
    expect((await orgPolicy(tenant, { name: 'MINE' }, other.token)).status).toBe(401);
    expect((await api('GET', `/api/v1/policy/${other.orgId}/MINE`, { token: other.token })).status).toBe(404);
    expect(await auditOf(tenant.orgId)).toHaveLength(1);
  });
});

describe('application scan policy and tech flags', () => {
  it('starts as DEFAULT, assigns, toggles and sets flags, each audited, and shows in the scan config read', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const path = `/api/v1/app/${appId}/policy`;
    const initial = await api('GET', path, { token: tenant.token });
    expect(initial.body).toMatchObject({
      status: 'OK',
      scanPolicy: { name: 'DEFAULT', applicationId: appId, isCustomized: false },
    });
    expect((await api('GET', path, { token: tenant.token, query: { policyConfigured: true } })).body).toEqual({
      status: 'NOT_FOUND',
    });

    expect(
      (
        await orgPolicy(tenant, {
          name: 'ORG_SQL',
          plugins: [
            { pluginId: '40018', enabled: true },
            { pluginId: '10038', enabled: true },
          ],
        })
      ).status,
    ).toBe(200);
    expect(
      (await api('GET', path, { token: tenant.token, query: { policyName: 'ORG_SQL' } })).body.scanPolicy.name,
    ).toBe('ORG_SQL');
    const assigned = await api('PUT', `${path}/assign`, { token: tenant.token, query: { policyName: 'ORG_SQL' } });
    expect(assigned.status).toBe(200);
    expect(assigned.body.scanPolicy).toMatchObject({ name: 'ORG_SQL', applicationId: appId, isCustomized: false });
    expect(enabledIds(assigned.body.scanPolicy).sort()).toEqual(['10038', '40018']);

    const toggled = await api('GET', `${path}/plugins/40012/enabled`, { token: tenant.token });
    expect(toggled.status).toBe(200);
    expect(toggled.body.scanPolicy.isCustomized).toBe(true);
    expect(enabledIds(toggled.body.scanPolicy).sort()).toEqual(['10038', '40012', '40018']);
    expect((await api('GET', `${path}/plugins/10038/disabled`, { token: tenant.token })).status).toBe(200);

    // stackhawk-mcp's body, then the public description's bare map
    const flagged = await api('PUT', `${path}/flags`, {
      token: tenant.token,
      body: { techFlags: { 'Language.Java.Spring': false, 'OS.Linux': false } },
    });
    expect(flagged.status).toBe(200);
    expect(flagged.body.scanPolicy.techFlags).toMatchObject({
      'Language.Java.Spring': false,
      'OS.Linux': false,
      'OS.Windows': true,
    });
    expect((await api('PUT', `${path}/flags`, { token: tenant.token, body: { 'OS.Linux': true } })).status).toBe(200);
    const flags = await api('GET', `${path}/flags`, { token: tenant.token });
    expect(flags.body).toEqual({
      ...Object.fromEntries(TECH_FLAGS.map((f) => [f, true])),
      'Language.Java.Spring': false,
    });
    const proto = await getProtobuf(`${path}/flags`, tenant.token, 'hawk.TechFlags');
    expect(proto.decoded).toEqual({ techFlags: flags.body });

    const current = await api('GET', path, { token: tenant.token, query: { policyConfigured: true } });
    expect(current.body.scanPolicy).toMatchObject({ name: 'ORG_SQL', isCustomized: true });
    expect(enabledIds(current.body.scanPolicy).sort()).toEqual(['40012', '40018']);

    const scan = await startScan(tenant.token, appId);
    const config = await api('GET', `/api/v1/app/${appId}/config/${scan.configHash}`, { token: tenant.token });
    expect(config.body.conf.app.scanPolicy.name).toBe('ORG_SQL');
    expect(config.body.conf.app.scanPolicy.includePluginIds.sort()).toEqual(['40012', '40018']);
    expect(config.body.conf.app.scanPolicy.excludePluginIds).toContain('10038');

    const types = (await auditOf(tenant.orgId))
      .map((e) => e.type)
      .filter((t) => t !== 'SCAN_STARTED' && !t.startsWith('APPLICATION_ADDED') && !t.startsWith('ENVIRONMENT'));
    expect(types).toEqual([
      'ORGANIZATION_POLICY_MODIFIED',
      'APPLICATION_POLICY_MODIFIED',
      'APPLICATION_POLICY_MODIFIED',
      'APPLICATION_POLICY_MODIFIED',
      'TECH_FLAG_MODIFIED',
      'TECH_FLAG_MODIFIED',
    ]);
  });

  it('answers 400 naming unknown plugins, flags and policies, changing nothing', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const path = `/api/v1/app/${appId}/policy`;
    const before = (await auditOf(tenant.orgId)).length;
    const unknownPlugin = await api('GET', `${path}/plugins/99999/enabled`, { token: tenant.token });
    expect(unknownPlugin.status).toBe(400);
    expect(unknownPlugin.body.message).toContain('99999');
    expect((await api('GET', `${path}/plugins/abc/enabled`, { token: tenant.token })).body.message).toContain(
      'pluginId',
    );
    expect((await api('GET', `${path}/plugins/40012/on`, { token: tenant.token })).body.message).toContain('toggle');
    const unknownFlag = await api('PUT', `${path}/flags`, {
      token: tenant.token,
      body: { techFlags: { 'OS.Linux': false, 'OS.BeOS': false, 'Db.Nope': true } },
    });
    expect(unknownFlag.status).toBe(400);
    expect(unknownFlag.body.message).toContain('"OS.BeOS", "Db.Nope"');
    expect(
      (await api('PUT', `${path}/flags`, { token: tenant.token, body: { techFlags: { 'OS.Linux': 'off' } } })).status,
    ).toBe(400);
    const unknownPolicy = await api('PUT', `${path}/assign`, { token: tenant.token, query: { policyName: 'MISSING' } });
    expect(unknownPolicy.status).toBe(400);
    expect(unknownPolicy.body.message).toContain('policyName');
    expect((await api('GET', `${path}/flags`, { token: tenant.token })).body['OS.Linux']).toBe(true);
    expect((await api('GET', path, { token: tenant.token, query: { policyConfigured: true } })).body.status).toBe(
      'NOT_FOUND',
    );
    expect(await auditOf(tenant.orgId)).toHaveLength(before);
  });

  it('applies permissions, team rules and organization isolation', async () => {
    const tenant = await createTenant();
    const teamId = randomUUID();
    const teamApp = await seedApplication(tenant.orgId, { teamId });
    const path = `/api/v1/app/${teamApp}/policy`;
    const member = await addUserTo(tenant.orgId, ['read:policy', 'write:policy']);
    expect((await api('GET', path, { token: member.token })).status).toBe(401);
    expect(
      (await api('PUT', `${path}/flags`, { token: member.token, body: { techFlags: { OS: false } } })).status,
    ).toBe(401);
    await setMembership(tenant.orgId, member.userId, ['read:policy', 'write:policy'], [teamId]);
    expect(
      (await api('PUT', `${path}/flags`, { token: member.token, body: { techFlags: { OS: false } } })).status,
    ).toBe(200);
    const reader = await addUserTo(tenant.orgId, ['read:policy']);
    await setMembership(tenant.orgId, reader.userId, ['read:policy'], [teamId]);
    expect((await api('GET', `${path}/flags`, { token: reader.token })).body.OS).toBe(false);
    expect((await api('GET', `${path}/plugins/40012/disabled`, { token: reader.token })).status).toBe(401);
    expect((await api('PUT', `${path}/assign`, { token: reader.token })).status).toBe(401);
    const other = await createTenant();
    expect((await api('GET', path, { token: other.token })).status).toBe(404);
    expect((await api('GET', `${path}/flags`, { token: other.token })).status).toBe(404);
    expect((await api('PUT', `${path}/flags`, { token: other.token, body: { techFlags: { OS: true } } })).status).toBe(
      404,
    );
    // another organization's policy cannot be assigned by name
    expect((await orgPolicy(other, { name: 'OTHER_ORG' })).status).toBe(200);
    expect(
      (await api('PUT', `${path}/assign`, { token: member.token, query: { policyName: 'OTHER_ORG' } })).status,
    ).toBe(400);
    expect((await api('GET', path, { token: member.token, query: { policyName: 'OTHER_ORG' } })).body.status).toBe(
      'NOT_FOUND',
    );
  });
});
