import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { api } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';
import { auditTypes, joinTeams } from './app-helpers.ts';
import { s3 } from '../../shared/storage/s3.ts';
import { config } from '../../shared/config.ts';
import { objectKeys } from '../../shared/storage/objects.ts';

describe('applications: create, get, update (docs/API.md, Applications)', () => {
  it('creates an application from the public request body, ignoring unknown fields, and reads it back', async () => {
    const tenant = await createTenant();
    const created = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: {
        name: 'Lemon',
        env: 'dev',
        dataType: 'NONE',
        riskLevel: 'MEDIUM',
        organizationId: tenant.orgId,
        language: 'go',
        frameworks: ['x'],
      },
    });
    expect(created.status).toBe(200);
    // dataType and riskLevel are write-only in application.Application: accepted, not returned.
    expect(created.body).toMatchObject({
      name: 'Lemon',
      organizationId: tenant.orgId,
      applicationStatus: 'ACTIVE',
      applicationType: 'STANDARD',
    });
    expect(created.body.env).toBe('');
    expect(created.body.envId).toBe('');
    expect(created.body.cloudScanTarget).toEqual({ targetURL: '', isDomainVerified: false }); // docs/API.md, Applications
    const got = await api('GET', `/api/v1/app/${created.body.applicationId}`, { token: tenant.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
    const envs = await api('GET', `/api/v1/app/${created.body.applicationId}/env/list`, { token: tenant.token });
    expect(envs.body.environments.map((e: { environmentName: string }) => e.environmentName)).toEqual(['dev']);
    expect(await auditTypes(tenant)).toEqual(['APPLICATION_ADDED', 'ENVIRONMENT_ADDED']);
  });

  it('needs no name; without env the application is ENV_INCOMPLETE until its first environment', async () => {
    const tenant = await createTenant();
    const created = await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body: {} });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: '', applicationStatus: 'ENV_INCOMPLETE' });
    const appId = created.body.applicationId;
    const env = await api('POST', `/api/v1/app/${appId}/env`, {
      token: tenant.token,
      body: { env: 'prod', applicationId: appId },
    });
    expect(env.status).toBe(200);
    expect(env.body).toMatchObject({ applicationId: appId, env: 'prod', applicationStatus: 'ACTIVE' });
    expect(env.body.envId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await api('GET', `/api/v1/app/${appId}`, { token: tenant.token })).body.applicationStatus).toBe('ACTIVE');
    await api('DELETE', `/api/v1/app/${appId}/env/${env.body.envId}`, { token: tenant.token });
    expect((await api('GET', `/api/v1/app/${appId}`, { token: tenant.token })).body.applicationStatus).toBe(
      'ENV_INCOMPLETE',
    );
  });

  it('creates CLOUD applications with their scan target, and refuses invalid fields with 400 naming them', async () => {
    const tenant = await createTenant();
    const cloud = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: tenant.token,
      body: { name: 'c', applicationType: 'CLOUD', cloudScanTargetURL: 'https://example.test' },
    });
    expect(cloud.body).toMatchObject({
      applicationType: 'CLOUD',
      cloudScanTarget: { targetURL: 'https://example.test', isDomainVerified: false },
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ applicationType: 'CLOUD' }, 'cloudScanTargetURL'],
      [{ applicationType: 'MAINFRAME' }, 'body.applicationType'],
      [{ dataType: 'SECRET' }, 'body.dataType'],
      [{ riskLevel: 'EXTREME' }, 'body.riskLevel'],
      [{ teamId: 'nope' }, 'body.teamId'],
      [{ teamId: randomUUID() }, 'teamId'],
      [{ organizationId: randomUUID() }, 'organizationId'],
      [{ name: 7 }, 'body.name'],
      [{ env: 'a,b' }, 'body.env'],
      [{ host: 'ftp://x' }, 'body.host'],
    ];
    for (const [body, field] of cases) {
      const out = await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body });
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toContain(field);
    }
    expect(await auditTypes(tenant)).toEqual(['APPLICATION_ADDED']);
  });

  it('updates only the name and records APPLICATION_MODIFIED', async () => {
    const tenant = await createTenant();
    const app = (
      await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body: { name: 'old', env: 'e' } })
    ).body;
    const updated = await api('POST', `/api/v1/app/${app.applicationId}`, {
      token: tenant.token,
      body: { name: 'new', applicationType: 'CLOUD', dataType: 'PII', riskLevel: 'HIGH' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...app, name: 'new' });
    expect((await api('GET', `/api/v1/app/${app.applicationId}`, { token: tenant.token })).body.name).toBe('new');
    expect((await api('POST', `/api/v1/app/${app.applicationId}`, { token: tenant.token, body: {} })).status).toBe(400);
    const audit = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, {
      token: tenant.token,
      query: { types: 'APPLICATION_MODIFIED' },
    });
    expect(audit.body.auditRecords).toHaveLength(1);
    expect(JSON.parse(audit.body.auditRecords[0].payload)).toMatchObject({
      applicationId: app.applicationId,
      appName: 'new',
      previousAppName: 'old',
    });
  });

  it('answers 404 for unknown applications and 400 for malformed ids', async () => {
    const tenant = await createTenant();
    const unknown = randomUUID();
    for (const [method, path, body] of [
      ['GET', `/api/v1/app/${unknown}`],
      ['POST', `/api/v1/app/${unknown}`, { name: 'x' }],
      ['DELETE', `/api/v1/app/${unknown}`],
      ['POST', `/api/v1/app/${unknown}/env`, { env: 'x' }],
      ['GET', `/api/v1/app/${unknown}/env/list`],
    ] as const) {
      expect((await api(method, path, { token: tenant.token, body })).status, `${method} ${path}`).toBe(404);
    }
    expect((await api('GET', '/api/v1/app/not-a-uuid', { token: tenant.token })).status).toBe(400);
  });
});

describe('permissions, tenants and teams (docs/API.md, Team rules; Sessions)', () => {
  it("another organization's user gets 404 for every application operation and sees nothing in lists", async () => {
    const owner = await createTenant();
    const stranger = await createTenant();
    const app = (
      await api('POST', `/api/v1/org/${owner.orgId}/app`, { token: owner.token, body: { name: 'mine', env: 'dev' } })
    ).body;
    const envId = (await api('GET', `/api/v1/app/${app.applicationId}/env/list`, { token: owner.token })).body
      .environments[0].environmentId;
    for (const [method, path, body] of [
      ['GET', `/api/v1/app/${app.applicationId}`],
      ['POST', `/api/v1/app/${app.applicationId}`, { name: 'x' }],
      ['DELETE', `/api/v1/app/${app.applicationId}`],
      ['POST', `/api/v1/app/${app.applicationId}/env`, { env: 'x' }],
      ['POST', `/api/v1/app/${app.applicationId}/env/${envId}`, { name: 'x' }],
      ['DELETE', `/api/v1/app/${app.applicationId}/env/${envId}`],
      ['GET', `/api/v1/app/${app.applicationId}/env/list`],
    ] as const) {
      expect((await api(method, path, { token: stranger.token, body })).status, `${method} ${path}`).toBe(404);
    }
    for (const path of [
      `/api/v2/org/${owner.orgId}/apps`,
      `/api/v2/org/${owner.orgId}/envs`,
      `/api/v1/app/${owner.orgId}/list`,
      `/api/v1/org/${owner.orgId}/audit`,
    ]) {
      expect((await api('GET', path, { token: stranger.token })).status, path).toBe(401);
    }
    expect(
      (await api('POST', `/api/v1/org/${owner.orgId}/app`, { token: stranger.token, body: { name: 'x' } })).status,
    ).toBe(401);
    expect((await api('GET', `/api/v1/app/${app.applicationId}`, { token: owner.token })).body.name).toBe('mine');
  });

  it("needs the operation's permission (401 otherwise)", async () => {
    const owner = await createTenant();
    const app = (
      await api('POST', `/api/v1/org/${owner.orgId}/app`, { token: owner.token, body: { name: 'a', env: 'dev' } })
    ).body;
    const reader = await addUserTo(owner.orgId, ['read:application']);
    expect((await api('GET', `/api/v1/app/${app.applicationId}`, { token: reader.token })).status).toBe(200);
    expect(
      (await api('POST', `/api/v1/app/${app.applicationId}`, { token: reader.token, body: { name: 'x' } })).status,
    ).toBe(401);
    expect((await api('DELETE', `/api/v1/app/${app.applicationId}`, { token: reader.token })).status).toBe(401);
    expect((await api('POST', `/api/v1/org/${owner.orgId}/app`, { token: reader.token, body: {} })).status).toBe(401);
    expect((await api('GET', `/api/v1/org/${owner.orgId}/audit`, { token: reader.token })).status).toBe(401);
    const writer = await addUserTo(owner.orgId, ['write:application']);
    expect((await api('GET', `/api/v1/app/${app.applicationId}`, { token: writer.token })).status).toBe(401);
    expect((await api('GET', `/api/v2/org/${owner.orgId}/apps`, { token: writer.token })).status).toBe(401);
  });

  it('a team member creates team-owned applications that only team members may read, update and rename environments of', async () => {
    const owner = await createTenant();
    const [teamA, teamB] = [randomUUID(), randomUUID()];
    const member = await addUserTo(owner.orgId);
    await joinTeams(owner.orgId, member.userId, [teamA]);
    const other = await addUserTo(owner.orgId);
    await joinTeams(owner.orgId, other.userId, [teamB]);

    const app = (
      await api('POST', `/api/v1/org/${owner.orgId}/app`, {
        token: member.token,
        body: { name: 'team app', env: 'dev' },
      })
    ).body;
    const unowned = (
      await api('POST', `/api/v1/org/${owner.orgId}/app`, {
        token: owner.token,
        body: { name: 'open app', env: 'dev' },
      })
    ).body;
    const envId = (await api('GET', `/api/v1/app/${app.applicationId}/env/list`, { token: member.token })).body
      .environments[0].environmentId;

    expect((await api('GET', `/api/v1/app/${app.applicationId}`, { token: member.token })).status).toBe(200);
    for (const token of [other.token, owner.token]) {
      expect((await api('GET', `/api/v1/app/${app.applicationId}`, { token })).status).toBe(401);
      expect((await api('POST', `/api/v1/app/${app.applicationId}`, { token, body: { name: 'x' } })).status).toBe(401);
      expect(
        (await api('POST', `/api/v1/app/${app.applicationId}/env/${envId}`, { token, body: { name: 'x' } })).status,
      ).toBe(401);
      expect((await api('GET', `/api/v1/app/${app.applicationId}/env/list`, { token })).body.environments).toEqual([]);
    }
    expect((await api('GET', `/api/v1/app/${unowned.applicationId}`, { token: other.token })).status).toBe(200);

    const names = async (token: string) =>
      (await api('GET', `/api/v2/org/${owner.orgId}/apps`, { token })).body.applications
        .map((a: { name: string }) => a.name)
        .sort();
    expect(await names(member.token)).toEqual(['open app', 'team app']);
    expect(await names(other.token)).toEqual(['open app']);
    expect(await names(owner.token)).toEqual(['open app']);
    const envNames = async (token: string) =>
      (await api('GET', `/api/v2/org/${owner.orgId}/envs`, { token })).body.environments
        .map((e: { applicationName: string }) => e.applicationName)
        .sort();
    expect(await envNames(member.token)).toEqual(['open app', 'team app']);
    expect(await envNames(other.token)).toEqual(['open app']);
    expect((await api('GET', `/api/v2/org/${owner.orgId}/envs`, { token: other.token })).body.totalCount).toBe('1');
    const v1 = await api('GET', `/api/v1/app/${owner.orgId}/list`, { token: other.token });
    expect(v1.body.applications.map((a: { name: string }) => a.name)).toEqual(['open app']);

    // An explicit teamId must be one of the caller's teams.
    expect(
      (await api('POST', `/api/v1/org/${owner.orgId}/app`, { token: member.token, body: { teamId: teamB } })).status,
    ).toBe(400);
    const explicit = await api('POST', `/api/v1/org/${owner.orgId}/app`, {
      token: member.token,
      body: { name: 'explicit', teamId: teamA },
    });
    expect(explicit.status).toBe(200);
    expect((await api('GET', `/api/v1/app/${explicit.body.applicationId}`, { token: other.token })).status).toBe(401);
  });
});

describe('environments (docs/API.md, Environments)', () => {
  it('creates, renames and deletes environments with their audit entries; names are unique per application', async () => {
    const tenant = await createTenant();
    const app = (await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body: { name: 'a' } }))
      .body;
    const base = `/api/v1/app/${app.applicationId}/env`;
    const dev = await api('POST', base, { token: tenant.token, body: { env: 'dev' } });
    expect(dev.status).toBe(200);
    expect((await api('POST', base, { token: tenant.token, body: { env: 'DEV' } })).status).toBe(409);
    expect((await api('POST', base, { token: tenant.token, body: {} })).status).toBe(400);
    expect((await api('POST', base, { token: tenant.token, body: { env: '  ' } })).status).toBe(400);
    const prod = (await api('POST', base, { token: tenant.token, body: { env: 'prod' } })).body;

    const renamed = await api('POST', `${base}/${dev.body.envId}`, { token: tenant.token, body: { name: 'staging' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ applicationId: app.applicationId, env: 'staging', envId: dev.body.envId });
    expect(
      (await api('POST', `${base}/${dev.body.envId}`, { token: tenant.token, body: { name: 'PROD' } })).status,
    ).toBe(409);
    expect((await api('POST', `${base}/${dev.body.envId}`, { token: tenant.token, body: {} })).status).toBe(400);
    // The freed name can be used again.
    expect((await api('POST', base, { token: tenant.token, body: { env: 'dev' } })).status).toBe(200);

    expect((await api('DELETE', `${base}/${prod.envId}`, { token: tenant.token })).status).toBe(200);
    expect((await api('DELETE', `${base}/${prod.envId}`, { token: tenant.token })).status).toBe(404);
    expect((await api('POST', `${base}/${prod.envId}`, { token: tenant.token, body: { name: 'x' } })).status).toBe(404);
    expect((await api('POST', `${base}/${randomUUID()}`, { token: tenant.token, body: { name: 'x' } })).status).toBe(
      404,
    );
    const list = await api('GET', `${base}/list`, { token: tenant.token });
    expect(list.body.environments.map((e: { environmentName: string }) => e.environmentName)).toEqual([
      'dev',
      'staging',
    ]);
    expect(await auditTypes(tenant)).toEqual([
      'APPLICATION_ADDED',
      'ENVIRONMENT_ADDED',
      'ENVIRONMENT_ADDED',
      'ENVIRONMENT_MODIFIED',
      'ENVIRONMENT_ADDED',
      'ENVIRONMENT_REMOVED',
    ]);
  });

  it('stores the default hosted scan configuration with the host', async () => {
    const tenant = await createTenant();
    const app = (await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body: { name: 'a' } }))
      .body;
    const env = await api('POST', `/api/v1/app/${app.applicationId}/env`, {
      token: tenant.token,
      body: { env: 'dev' },
      query: { host: 'https://dev.example.test' },
    });
    expect(env.status).toBe(200);
    const object = await (
      await s3()
    ).send(
      new GetObjectCommand({
        Bucket: config.assetsBucket,
        Key: objectKeys.environmentConfig(app.applicationId, env.body.envId),
      }),
    );
    const text = await object.Body!.transformToString();
    expect(parseYaml(text)).toEqual({
      app: { applicationId: app.applicationId, env: 'dev', host: 'https://dev.example.test' },
    });
    expect(
      (
        await api('POST', `/api/v1/app/${app.applicationId}/env`, {
          token: tenant.token,
          body: { env: 'x' },
          query: { host: 'not a url' },
        })
      ).status,
    ).toBe(400);
  });
});
