import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { api } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';
import { PERMISSIONS } from '../../shared/context/permissions.ts';
import { auditEntriesOf, download, seedApplication, setMembership, yaml30 } from './hosted-assets-helpers.ts';

// GET /api/v1/oas/{orgId}/{oasId}, GET /api/v1/oas/{orgId}/list, GET and POST /api/v1/oas/{appId}/mapping.
const upload = (token: string, appId: string, text = yaml30()) =>
  api('POST', `/api/v1/oas/${appId}/upload`, { token, rawBody: text });
const uploaded = (oasId: string) => ({ oasId, repositoryId: '', repositoryName: '', sourceRootPath: '' });

describe('getting a hosted description', () => {
  it('answers the hosted-asset JSON by default and a 307 carrying it with redirect=true', async () => {
    const tenant = await createTenant();
    const appId = await seedApplication(tenant.orgId);
    await upload(tenant.token, appId);
    const json = await api('GET', `/api/v1/oas/${tenant.orgId}/${appId}`, { token: tenant.token });
    expect(json.status).toBe(200);
    expect(json.body).toEqual({ presignedDownloadUrl: expect.stringContaining(appId), method: 'GET', headers: '{}' });
    const redirect = await api('GET', `/api/v1/oas/${tenant.orgId}/${appId}`, {
      token: tenant.token,
      query: { redirect: true },
    });
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get('cache-control')).toBe('no-store');
    expect(redirect.body.presignedDownloadUrl).toBe(redirect.headers.get('location'));
    expect((await download(redirect.headers.get('location')!)).bytes.toString()).toBe(yaml30());
  });

  it('answers 404 without an upload, for an unknown id and across organizations', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const bare = await seedApplication(tenant.orgId);
    const foreign = await seedApplication(other.orgId);
    await upload(other.token, foreign);
    expect((await api('GET', `/api/v1/oas/${tenant.orgId}/${bare}`, { token: tenant.token })).status).toBe(404);
    expect((await api('GET', `/api/v1/oas/${tenant.orgId}/${randomUUID()}`, { token: tenant.token })).status).toBe(404);
    expect((await api('GET', `/api/v1/oas/${tenant.orgId}/${foreign}`, { token: tenant.token })).status).toBe(404);
    expect((await api('GET', `/api/v1/oas/${other.orgId}/${foreign}`, { token: tenant.token })).status).toBe(401);
  });

  it('requires read:scan_config and membership of the owning team', async () => {
    const tenant = await createTenant();
    const teamId = randomUUID();
    const teamApp = await seedApplication(tenant.orgId, { teamId });
    await setMembership(tenant.orgId, tenant.userId, ['write:scan_config', 'read:scan_config'], [teamId]);
    expect((await upload(tenant.token, teamApp)).status).toBe(200);
    const outsider = await addUserTo(tenant.orgId, ['read:scan_config']);
    expect((await api('GET', `/api/v1/oas/${tenant.orgId}/${teamApp}`, { token: outsider.token })).status).toBe(401);
    const noPermission = await addUserTo(tenant.orgId, ['read:application']);
    await setMembership(tenant.orgId, noPermission.userId, ['read:application'], [teamId]);
    expect((await api('GET', `/api/v1/oas/${tenant.orgId}/${teamApp}`, { token: noPermission.token })).status).toBe(
      401,
    );
    expect((await api('GET', `/api/v1/oas/${tenant.orgId}/${teamApp}`, { token: tenant.token })).status).toBe(200);
  });
});

describe('listing hosted descriptions', () => {
  it("lists the organization's uploaded descriptions the caller may see, paged", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const teamId = randomUUID();
    const apps = [
      await seedApplication(tenant.orgId),
      await seedApplication(tenant.orgId),
      await seedApplication(tenant.orgId),
    ];
    const teamApp = await seedApplication(tenant.orgId, { teamId });
    await seedApplication(tenant.orgId); // no description: not listed
    await setMembership(tenant.orgId, tenant.userId, [...PERMISSIONS], [teamId]);
    for (const appId of [...apps, teamApp]) expect((await upload(tenant.token, appId)).status).toBe(200);
    await upload(other.token, await seedApplication(other.orgId));

    const member = await addUserTo(tenant.orgId, ['read:scan_config']);
    const all = await api('GET', `/api/v1/oas/${tenant.orgId}/list`, { token: member.token });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      oasFiles: [...apps].sort().map(uploaded),
      totalCount: '3',
      hasNext: false,
      hasPrev: false,
      nextPageToken: '4',
      prevPageToken: '',
    });
    const page = await api('GET', `/api/v1/oas/${tenant.orgId}/list`, {
      token: member.token,
      query: { pageSize: 2, pageToken: 1, sortDir: 'desc' },
    });
    expect(page.body).toMatchObject({
      oasFiles: [uploaded([...apps].sort()[0])],
      hasNext: false,
      hasPrev: true,
      prevPageToken: '0',
    });
    const first = await api('GET', `/api/v1/oas/${tenant.orgId}/list`, {
      token: member.token,
      query: { pageSize: 2, page: 'p_0' },
    });
    expect(first.body).toMatchObject({ hasNext: true, nextPageToken: '1' });
    expect(first.body.oasFiles).toHaveLength(2);

    await setMembership(tenant.orgId, member.userId, ['read:scan_config'], [teamId]);
    const withTeam = await api('GET', `/api/v1/oas/${tenant.orgId}/list`, { token: member.token });
    expect(withTeam.body.oasFiles.map((a: { oasId: string }) => a.oasId)).toContain(teamApp);
    const byRepo = await api('GET', `/api/v1/oas/${tenant.orgId}/list`, {
      token: member.token,
      query: { repoIds: randomUUID() },
    });
    expect(byRepo.body).toMatchObject({ oasFiles: [], totalCount: '0' });
  });

  it('answers 401 to non-members and members without read:scan_config, 400 for bad paging', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const noPermission = await addUserTo(tenant.orgId, ['read:application']);
    expect((await api('GET', `/api/v1/oas/${tenant.orgId}/list`, { token: other.token })).status).toBe(401);
    expect((await api('GET', `/api/v1/oas/${tenant.orgId}/list`, { token: noPermission.token })).status).toBe(401);
    const bad = await api('GET', `/api/v1/oas/${tenant.orgId}/list`, { token: tenant.token, query: { pageSize: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('pageSize');
  });
});

describe('application OAS mapping', () => {
  it('returns the uploaded description and toggles repository-sourced ones, auditing each change once', async () => {
    const tenant = await createTenant();
    const appId = await seedApplication(tenant.orgId);
    const empty = await api('GET', `/api/v1/oas/${appId}/mapping`, { token: tenant.token });
    expect(empty.body).toEqual({ appId, assets: [], repoIds: [] });
    await upload(tenant.token, appId);
    const [oasId, repositoryId] = [randomUUID(), randomUUID()];
    const body = { appId, oasId, repositoryId, sourceRootPath: 'api/openapi.yaml', include: true };
    const included = await api('POST', `/api/v1/oas/${appId}/mapping`, { token: tenant.token, body });
    expect(included.status).toBe(200);
    const expected = {
      appId,
      assets: [uploaded(appId), { oasId, repositoryId, repositoryName: '', sourceRootPath: 'api/openapi.yaml' }],
      repoIds: [repositoryId],
    };
    expect(included.body).toEqual(expected);
    expect((await api('POST', `/api/v1/oas/${appId}/mapping`, { token: tenant.token, body })).body).toEqual(expected);
    expect((await api('GET', `/api/v1/oas/${appId}/mapping`, { token: tenant.token })).body).toEqual(expected);
    const excluded = await api('POST', `/api/v1/oas/${appId}/mapping`, {
      token: tenant.token,
      body: { oasId, repositoryId },
    });
    expect(excluded.body).toEqual({ appId, assets: [uploaded(appId)], repoIds: [] });
    const entries = (await auditEntriesOf(tenant.orgId)).map((e) => ({
      type: e.userActivityType,
      payload: JSON.parse(e.payload),
    }));
    expect(entries).toHaveLength(3); // upload, include, exclude: the repeated include changed nothing
    expect(entries[1]).toEqual({
      type: 'ORGANIZATION_CONFIGURATION_MODIFIED',
      payload: expect.objectContaining({ appId, oasId, include: true }),
    });
    expect(entries[2].payload).toMatchObject({ oasId, include: false });
  });

  it('answers 400 for a body naming another application, the uploaded description or no UUIDs', async () => {
    const tenant = await createTenant();
    const appId = await seedApplication(tenant.orgId);
    const post = (body: unknown) => api('POST', `/api/v1/oas/${appId}/mapping`, { token: tenant.token, body });
    const cases: [unknown, string][] = [
      [{ appId: randomUUID(), oasId: randomUUID(), repositoryId: randomUUID(), include: true }, 'body.appId'],
      [{ oasId: appId, repositoryId: randomUUID(), include: true }, 'body.oasId'],
      [{ oasId: 'x', repositoryId: randomUUID() }, 'body.oasId'],
      [{ oasId: randomUUID() }, 'body.repositoryId'],
      [{ oasId: randomUUID(), repositoryId: randomUUID(), include: 'yes' }, 'body.include'],
    ];
    for (const [body, field] of cases) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(response.body.message).toContain(field);
    }
    expect(await auditEntriesOf(tenant.orgId)).toHaveLength(0);
  });

  it('applies permissions, team rules and organization isolation', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const teamId = randomUUID();
    const teamApp = await seedApplication(tenant.orgId, { teamId });
    const body = { oasId: randomUUID(), repositoryId: randomUUID(), include: true };
    const outsider = await addUserTo(tenant.orgId, ['read:scan_config', 'write:scan_config']);
    expect((await api('GET', `/api/v1/oas/${teamApp}/mapping`, { token: outsider.token })).status).toBe(401);
    expect((await api('POST', `/api/v1/oas/${teamApp}/mapping`, { token: outsider.token, body })).status).toBe(401);
    const reader = await addUserTo(tenant.orgId, ['read:scan_config']);
    await setMembership(tenant.orgId, reader.userId, ['read:scan_config'], [teamId]);
    expect((await api('GET', `/api/v1/oas/${teamApp}/mapping`, { token: reader.token })).status).toBe(200);
    expect((await api('POST', `/api/v1/oas/${teamApp}/mapping`, { token: reader.token, body })).status).toBe(401);
    expect((await api('GET', `/api/v1/oas/${teamApp}/mapping`, { token: other.token })).status).toBe(404);
    expect((await api('POST', `/api/v1/oas/${randomUUID()}/mapping`, { token: tenant.token, body })).status).toBe(404);
    expect(await auditEntriesOf(tenant.orgId)).toHaveLength(0);
  });
});
