import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { auditEntriesOf, download, seedApplication, setMembership } from './hosted-assets-helpers.ts';
import { getProtobuf } from './protobuf-helpers.ts';
import { s3 } from '../../shared/storage/s3.ts';
import { config } from '../../shared/config.ts';

// Organization scan configurations (/api/v1/configuration/{orgId}/...) and the environment default configuration.

const stackhawkYml = (host: string) =>
  `app:\n  applicationId: ${randomUUID()}\n  env: Development\n  host: ${host}\nhawk:\n  spider:\n    base: false\n`;
const base = (tenant: Tenant) => `/api/v1/configuration/${tenant.orgId}`;
const update = (tenant: Tenant, body: unknown, token = tenant.token) =>
  api('POST', `${base(tenant)}/update`, { token, body });
const list = (tenant: Tenant, query: Record<string, string | number> = {}, token = tenant.token) =>
  api('GET', `${base(tenant)}/list`, { token, query });
const get = (tenant: Tenant, name: string, token = tenant.token) => api('GET', `${base(tenant)}/${name}`, { token });

async function storedObjects(orgId: string): Promise<string[]> {
  const out = await (
    await s3()
  ).send(new ListObjectsV2Command({ Bucket: config.assetsBucket, Prefix: `orgs/${orgId}/` }));
  return (out.Contents ?? []).map((o) => o.Key!);
}

async function auditOf(orgId: string) {
  return (await auditEntriesOf(orgId)).map((e) => ({ type: e.userActivityType, payload: JSON.parse(e.payload) }));
}

describe('organization scan configurations', () => {
  it('creates, lists, reads, replaces, renames and deletes, auditing each change in its transaction', async () => {
    const tenant = await createTenant();
    // hawkop's body: {conf, type, name}
    expect(
      (await update(tenant, { conf: stackhawkYml('https://one.test'), type: 'ORG', name: 'prod-config' })).status,
    ).toBe(200);
    expect(
      (await update(tenant, { conf: stackhawkYml('https://b.test'), configType: 'APP', name: 'Beta_1' })).status,
    ).toBe(200);

    const listed = await list(tenant);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      configs: [
        { name: 'Beta_1', description: '', organizationId: tenant.orgId },
        { name: 'prod-config', description: '', organizationId: tenant.orgId },
      ],
      totalCount: '2',
      hasNext: false,
      hasPrev: false,
      nextPageToken: '3',
      prevPageToken: '',
    });

    const first = await get(tenant, 'prod-config');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ presignedDownloadUrl: expect.any(String), method: 'GET', headers: '{}' });
    expect((await download(first.body.presignedDownloadUrl)).bytes.toString()).toContain('https://one.test');
    const redirect = await api('GET', `${base(tenant)}/prod-config`, {
      token: tenant.token,
      query: { redirect: true },
    });
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get('location')).toBe(redirect.body.presignedDownloadUrl);

    expect((await update(tenant, { conf: stackhawkYml('https://two.test'), name: 'prod-config' })).status).toBe(200);
    const replaced = await get(tenant, 'prod-config');
    expect((await download(replaced.body.presignedDownloadUrl)).bytes.toString()).toContain('https://two.test');
    expect(await storedObjects(tenant.orgId)).toHaveLength(2); // the replaced version is gone

    const renamed = await api('POST', `${base(tenant)}/rename`, {
      token: tenant.token,
      body: { originalName: 'prod-config', newName: 'production' },
    });
    expect(renamed.status).toBe(200);
    expect((await get(tenant, 'prod-config')).status).toBe(404);
    const moved = await get(tenant, 'production');
    expect((await download(moved.body.presignedDownloadUrl)).bytes.toString()).toContain('https://two.test');

    expect((await api('DELETE', `${base(tenant)}/production`, { token: tenant.token })).status).toBe(200);
    expect((await get(tenant, 'production')).status).toBe(404);
    expect((await api('DELETE', `${base(tenant)}/production`, { token: tenant.token })).status).toBe(404);
    expect((await list(tenant)).body.configs.map((c: { name: string }) => c.name)).toEqual(['Beta_1']);
    expect(await storedObjects(tenant.orgId)).toHaveLength(1);

    const audit = await auditOf(tenant.orgId);
    expect(audit.map((e) => e.type)).toEqual([
      'ORGANIZATION_CONFIGURATION_MODIFIED',
      'ORGANIZATION_CONFIGURATION_MODIFIED',
      'ORGANIZATION_CONFIGURATION_MODIFIED',
      'ORGANIZATION_CONFIGURATION_MODIFIED',
      'ORGANIZATION_CONFIGURATION_REMOVED',
    ]);
    expect(audit[0].payload).toMatchObject({ configName: 'prod-config', configType: 'ORG', created: true });
    expect(audit[1].payload).toMatchObject({ configName: 'Beta_1', configType: 'APP' });
    expect(audit[2].payload).toMatchObject({ configName: 'prod-config', created: false });
    expect(audit[3].payload).toEqual({ configName: 'production', previousName: 'prod-config' });
    expect(audit[4].payload).toEqual({ configName: 'production' });
  });

  it('pages, sorts and filters the list, in JSON and protobuf', async () => {
    const tenant = await createTenant();
    for (const name of ['c-three', 'a-one', 'B-two', 'd-four'])
      expect((await update(tenant, { conf: stackhawkYml('https://x.test'), name })).status).toBe(200);
    const page = await list(tenant, { pageSize: 2, pageToken: 1 });
    expect(page.body).toMatchObject({
      totalCount: '4',
      hasNext: false,
      hasPrev: true,
      prevPageToken: '0',
      nextPageToken: '5',
    });
    expect(page.body.configs.map((c: { name: string }) => c.name)).toEqual(['c-three', 'd-four']);
    const desc = await list(tenant, { sortField: 'name', sortDir: 'DESC', page: 'p_0', pageSize: 3 });
    expect(desc.body.configs.map((c: { name: string }) => c.name)).toEqual(['d-four', 'c-three', 'B-two']);
    expect(desc.body).toMatchObject({ hasNext: true, nextPageToken: '1' });
    const filtered = await list(tenant, { query: 'O' });
    expect(filtered.body.configs.map((c: { name: string }) => c.name)).toEqual(['a-one', 'B-two', 'd-four']);
    const proto = await getProtobuf(
      `${base(tenant)}/list`,
      tenant.token,
      'configuration.ListOrganizationScanConfigurationsResponse',
    );
    expect(proto.contentType).toBe('application/x-protobuf');
    expect(proto.decoded).toEqual((await list(tenant)).body);
  });

  it('answers 400 naming the field for bad input, and changes nothing', async () => {
    const tenant = await createTenant();
    expect((await update(tenant, { conf: stackhawkYml('https://x.test'), name: 'kept' })).status).toBe(200);
    const cases: [string, unknown, string][] = [
      ['update', { conf: stackhawkYml('https://x.test') }, 'body.name'],
      ['update', { conf: stackhawkYml('https://x.test'), name: 'has space' }, 'body.name'],
      ['update', { conf: stackhawkYml('https://x.test'), name: 'x'.repeat(65) }, 'body.name'],
      ['update', { name: 'n' }, 'body.conf'],
      ['update', { conf: '', name: 'n' }, 'body.conf'],
      ['update', { conf: 'x'.repeat(256 * 1024 + 1), name: 'n' }, 'body.conf'],
      ['update', { conf: 'app: [unclosed', name: 'n' }, 'conf: not valid YAML'],
      ['update', { conf: 'a: 1\na: 2\n', name: 'n' }, 'conf: not valid YAML'],
      ['update', { conf: '- just\n- a list\n', name: 'n' }, 'conf: must be a YAML mapping'],
      ['update', { conf: stackhawkYml('https://x.test'), name: 'n', configType: 'TEAM' }, 'body.configType'],
      ['rename', { originalName: 'kept' }, 'body.newName'],
      ['rename', { originalName: 'kept', newName: 'kept' }, 'newName'],
      ['rename', { originalName: 'kept', newName: 'bad/name' }, 'body.newName'],
      ['validate', { name: 'x' }, 'body.conf'],
    ];
    for (const [operation, body, field] of cases) {
      const response = await api('POST', `${base(tenant)}/${operation}`, { token: tenant.token, body });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.body.message).toContain(field);
    }
    expect(
      (await api('GET', `${base(tenant)}/list`, { token: tenant.token, query: { pageSize: 0 } })).body.message,
    ).toContain('pageSize');
    expect(
      (await api('GET', `${base(tenant)}/list`, { token: tenant.token, query: { query: 'a b' } })).body.message,
    ).toContain('query');
    expect((await api('GET', `${base(tenant)}/${'y'.repeat(65)}`, { token: tenant.token })).body.message).toContain(
      'configName',
    );
    expect(
      (
        await api('POST', `${base(tenant)}/rename`, {
          token: tenant.token,
          body: { originalName: 'missing', newName: 'other' },
        })
      ).status,
    ).toBe(404);
    expect((await update(tenant, { conf: stackhawkYml('https://y.test'), name: 'other' })).status).toBe(200);
    const taken = await api('POST', `${base(tenant)}/rename`, {
      token: tenant.token,
      body: { originalName: 'kept', newName: 'other' },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toContain('newName');
    expect((await list(tenant)).body.totalCount).toBe('2');
    expect((await auditOf(tenant.orgId)).map((e) => e.type)).toEqual([
      'ORGANIZATION_CONFIGURATION_MODIFIED',
      'ORGANIZATION_CONFIGURATION_MODIFIED',
    ]);
    expect(await storedObjects(tenant.orgId)).toHaveLength(2);
  });

  it('needs the permission of each operation; team membership does not matter (organization resources)', async () => {
    const tenant = await createTenant();
    expect((await update(tenant, { conf: stackhawkYml('https://x.test'), name: 'shared' })).status).toBe(200);
    const reader = await addUserTo(tenant.orgId, ['read:scan_config']);
    await setMembership(tenant.orgId, reader.userId, ['read:scan_config'], [randomUUID()]);
    expect((await get(tenant, 'shared', reader.token)).status).toBe(200);
    expect((await list(tenant, {}, reader.token)).status).toBe(200);
    expect(
      (await api('POST', `${base(tenant)}/validate`, { token: reader.token, body: { conf: 'app: {}' } })).status,
    ).toBe(200);
    expect((await update(tenant, { conf: 'a: 1', name: 'mine' }, reader.token)).status).toBe(401);
    expect(
      (
        await api('POST', `${base(tenant)}/rename`, {
          token: reader.token,
          body: { originalName: 'shared', newName: 'x' },
        })
      ).status,
    ).toBe(401);
    expect((await api('DELETE', `${base(tenant)}/shared`, { token: reader.token })).status).toBe(401);

    const writer = await addUserTo(tenant.orgId, ['read:scan_config', 'write:scan_config']);
    expect((await update(tenant, { conf: 'a: 1', name: 'mine' }, writer.token)).status).toBe(200);
    expect((await api('DELETE', `${base(tenant)}/mine`, { token: writer.token })).status).toBe(401); // delete:scan_config
    const deleter = await addUserTo(tenant.orgId, ['delete:scan_config']);
    expect((await get(tenant, 'mine', deleter.token)).status).toBe(401);
    expect((await api('DELETE', `${base(tenant)}/mine`, { token: deleter.token })).status).toBe(200);

    const noApi = await createTenant({ apiAccess: false });
    expect((await update(noApi, { conf: 'a: 1', name: 'x' })).status).toBe(401);
  });

  it('keeps organizations apart: another organization is never read, listed or changed', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    expect((await update(tenant, { conf: stackhawkYml('https://x.test'), name: 'secret' })).status).toBe(200);
    const theirs = { ...other, orgId: tenant.orgId };
    expect((await get(theirs, 'secret', other.token)).status).toBe(401);
    expect((await list(theirs, {}, other.token)).status).toBe(401);
    expect((await update(theirs, { conf: 'a: 1', name: 'secret' }, other.token)).status).toBe(401);
    expect((await api('DELETE', `${base(tenant)}/secret`, { token: other.token })).status).toBe(401);
    expect(
      (
        await api('POST', `${base(tenant)}/rename`, {
          token: other.token,
          body: { originalName: 'secret', newName: 'x' },
        })
      ).status,
    ).toBe(401);
    expect((await get(other, 'secret')).status).toBe(404);
    expect((await list(other)).body.totalCount).toBe('0');
    expect((await update(other, { conf: 'a: 2', name: 'secret' })).status).toBe(200); // same name, other organization
    const mine = await get(tenant, 'secret');
    expect((await download(mine.body.presignedDownloadUrl)).bytes.toString()).toContain('https://x.test');
    expect(await auditOf(tenant.orgId)).toHaveLength(1);
  });

  it('validates as the scanner client does: markers with the key path and position, nothing stored', async () => {
    const tenant = await createTenant();
    const validate = (conf: string, name?: string) =>
      api('POST', `${base(tenant)}/validate`, { token: tenant.token, body: { conf, name } });
    const valid = [
      'app:',
      `  applicationId: ${randomUUID()}`,
      '  env: Development',
      '  host: http://localhost:3000',
      '  authentication:',
      '    usernamePassword:',
      '      type: FORM',
      '      loginPath: /login',
      '      usernameField: username',
      '      passwordField: password',
      '      scanUsername: ${SCAN_USERNAME}',
      '      scanPassword: ${SCAN_PASSWORD}',
      '    cookieAuthorization:',
      '      cookieNames: [session]',
      'hawk:',
      '  spider: {base: false}',
      '',
    ].join('\n');
    expect((await validate(valid)).body).toEqual({ markers: [] });

    const broken = valid
      .replace('type: FORM', 'type: XML')
      .replace('host: http://localhost:3000', 'host: ftp://nowhere')
      .replace('  env: Development\n', '  env: Development\n  bogus: 1\n');
    const result = await validate(broken, 'mine');
    expect(result.status).toBe(200);
    const byCode = Object.fromEntries(result.body.markers.map((m: { code: string }) => [m.code, m]));
    expect(Object.keys(byCode).sort()).toEqual(['app.authentication.usernamePassword.type', 'app.bogus', 'app.host']);
    expect(byCode['app.host']).toMatchObject({
      severity: 'ERROR',
      owner: 'StackHawk',
      resource: 'mine',
      startLineNumber: 5,
      message: expect.stringContaining('http(s) URL'),
    });
    expect(byCode['app.authentication.usernamePassword.type']).toMatchObject({
      startLineNumber: 8,
      message: expect.stringContaining('FORM, JSON'),
    });
    expect(byCode['app.bogus'].message).toContain('unknown key');

    const missing = await validate('app:\n  env: Development\n');
    expect(missing.body.markers.map((m: { code: string }) => m.code).sort()).toEqual([
      'app.applicationId',
      'app.authentication',
      'app.host',
    ]);
    const syntax = await validate('app:\n  env: [x\n');
    expect(syntax.body.markers).toHaveLength(1);
    expect(syntax.body.markers[0]).toMatchObject({
      code: '',
      resource: 'stackhawk.yml',
      message: expect.stringContaining('invalid YAML'),
    });
    expect(await storedObjects(tenant.orgId)).toEqual([]);
    expect(await auditOf(tenant.orgId)).toEqual([]);
  });
});

describe('environment default configuration', () => {
  async function environment(tenant: Tenant, teamId?: string) {
    const app = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: { name: `app-${randomUUID()}`, ...(teamId ? { teamId } : {}) },
    });
    const env = await api('POST', `/api/v1/app/${app.body.applicationId}/env`, {
      token: tenant.token,
      body: { env: 'dev' },
      query: { host: 'https://dev.example.test' },
    });
    return {
      appId: app.body.applicationId as string,
      envId: env.body.envId as string,
      path: `/api/v1/app/${app.body.applicationId}/env/${env.body.envId}/config/default`,
    };
  }

  it('reads the configuration written at creation, replaces it with ENVIRONMENT_MODIFIED, in JSON and protobuf', async () => {
    const tenant = await createTenant();
    const { appId, envId, path } = await environment(tenant);
    const initial = await api('GET', path, { token: tenant.token });
    expect(initial.status).toBe(200);
    expect(initial.body.conf.app).toMatchObject({ applicationId: appId, env: 'dev', host: 'https://dev.example.test' });
    expect(initial.body.configHash).toMatch(/^[0-9a-f]{64}$/);

    const conf = {
      app: { applicationId: appId, env: 'dev', host: 'https://new.example.test' },
      hawk: { spider: { base: false, maxDurationMinutes: 5 } },
    };
    const posted = await api('POST', path, {
      token: tenant.token,
      body: { applicationId: appId, envId, isDefault: true, conf },
    });
    expect(posted.status).toBe(200);
    const read = await api('GET', path, { token: tenant.token });
    expect(read.body.conf.app.host).toBe('https://new.example.test');
    expect(read.body.conf.hawk.spider).toMatchObject({ base: false, maxDurationMinutes: 5 });
    expect(read.body.configHash).not.toBe(initial.body.configHash);
    const proto = await getProtobuf(path, tenant.token, 'application.ApplicationConfigResponse');
    expect(proto.decoded).toEqual(read.body);

    const entries = await auditOf(tenant.orgId);
    expect(entries.at(-1)).toEqual({
      type: 'ENVIRONMENT_MODIFIED',
      payload: expect.objectContaining({ applicationId: appId, envId, envName: 'dev', defaultConfig: 'replaced' }),
    });
    // Deleting the environment removes every stored version.
    expect((await api('DELETE', `/api/v1/app/${appId}/env/${envId}`, { token: tenant.token })).status).toBe(200);
    expect((await api('GET', path, { token: tenant.token })).status).toBe(404);
  });

  it("takes hawk.authorization (docs/SCANNER-AUTH.md, Authorization testing): its users' literal credentials move to the scan secrets, an unknown key is a 400", async () => {
    const tenant = await createTenant();
    const { appId, envId, path } = await environment(tenant);
    const authentication = (user: string, password: string) => ({
      usernamePassword: {
        type: 'FORM',
        loginPath: '/login',
        usernameField: 'u',
        passwordField: 'p',
        scanUsername: user,
        scanPassword: password,
      },
      cookieAuthorization: { cookieNames: ['sid'] },
    });
    const conf = {
      app: {
        applicationId: appId,
        env: 'dev',
        host: 'https://dev.example.test',
        authentication: authentication('alice', '${ALICE}'),
      },
      hawk: {
        authorization: { users: [{ name: 'bob', authentication: authentication('bob', 'bob-pw') }], unsafe: true },
      },
    };
    const refused = await api('POST', path, { token: tenant.token, body: { applicationId: appId, envId, conf } });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.message).toContain('body.conf.hawk.authorization.unsafe: unknown key');
    delete (conf.hawk.authorization as { unsafe?: boolean }).unsafe;
    const saved = await api('POST', path, { token: tenant.token, body: { applicationId: appId, envId, conf } });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.movedSecrets).toEqual(['USER_BOB_USERNAME_PASSWORD_SCAN_PASSWORD']);
    const secrets = await api('GET', `/api/v1/app/${appId}/secrets`, { token: tenant.token });
    expect(secrets.text).toContain('USER_BOB_USERNAME_PASSWORD_SCAN_PASSWORD');
    expect(secrets.text).not.toContain('bob-pw');
  });

  it('lands each of concurrent replacements whole or answers 409: the stored one answered 200, audited once each', async () => {
    const tenant = await createTenant();
    const { appId, envId, path } = await environment(tenant);
    const hosts = Array.from({ length: 6 }, (_, i) => `https://concurrent-${i}.example.test`);
    const answers = await Promise.all(
      hosts.map((host) => api('POST', path, { token: tenant.token, body: { conf: { app: { host } } } })),
    );
    for (const answer of answers) expect([200, 409], answer.text).toContain(answer.status);
    const landed = hosts.filter((_, i) => answers[i].status === 200);
    expect(landed.length).toBeGreaterThanOrEqual(1);
    const read = await api('GET', path, { token: tenant.token });
    expect(landed).toContain(read.body.conf.app.host);
    const modified = (await auditOf(tenant.orgId)).filter((e) => e.type === 'ENVIRONMENT_MODIFIED');
    expect(modified).toHaveLength(landed.length);
    // Only the current version is kept: a refused one is deleted, a replaced one too.
    const versions = await (
      await s3()
    ).send(
      new ListObjectsV2Command({ Bucket: config.assetsBucket, Prefix: `apps/${appId}/envs/${envId}/default-config/` }),
    );
    expect(versions.Contents ?? []).toHaveLength(1);
  });

  it('answers 400 naming the field, and changes nothing', async () => {
    const tenant = await createTenant();
    const { appId, path } = await environment(tenant);
    const before = await api('GET', path, { token: tenant.token });
    const cases: [unknown, string][] = [
      [{}, 'body.conf'],
      [{ conf: 'app: {}' }, 'body.conf'],
      [{ conf: { app: { host: 12 } } }, 'body.conf'],
      [{ conf: { app: {} }, applicationId: randomUUID() }, 'body.applicationId'],
      [{ conf: { app: {} }, envId: 'nope' }, 'body.envId'],
      [{ conf: { app: {} }, applicationId: appId, isDefault: 'yes' }, 'body.isDefault'],
    ];
    for (const [body, field] of cases) {
      const response = await api('POST', path, { token: tenant.token, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.message).toContain(field);
    }
    expect((await api('GET', path, { token: tenant.token })).body).toEqual(before.body);
    expect((await auditOf(tenant.orgId)).filter((e) => e.type === 'ENVIRONMENT_MODIFIED')).toEqual([]);
  });

  it('applies permissions, team rules and organization isolation', async () => {
    const tenant = await createTenant();
    const teamId = randomUUID();
    const appId = await seedApplication(tenant.orgId, { teamId });
    const { path } = await environment(tenant);
    const teamPath = `/api/v1/app/${appId}/env/${randomUUID()}/config/default`;
    const body = { conf: { app: { env: 'dev' } } };
    const reader = await addUserTo(tenant.orgId, ['read:scan_config']);
    expect((await api('GET', path, { token: reader.token })).status).toBe(200);
    expect((await api('POST', path, { token: reader.token, body })).status).toBe(401);
    expect((await api('GET', teamPath, { token: reader.token })).status).toBe(401); // a team's application
    await setMembership(tenant.orgId, reader.userId, ['read:scan_config'], [teamId]);
    expect((await api('GET', teamPath, { token: reader.token })).status).toBe(404); // visible now; no such environment
    const other = await createTenant();
    expect((await api('GET', path, { token: other.token })).status).toBe(404);
    expect((await api('POST', path, { token: other.token, body })).status).toBe(404);
    expect(
      (await api('GET', `/api/v1/app/${randomUUID()}/env/${randomUUID()}/config/default`, { token: tenant.token }))
        .status,
    ).toBe(404);
  });
});
