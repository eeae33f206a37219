import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';

describe('GET /api/v1/org/{orgId}/audit (docs/API.md, Activity log)', () => {
  it('lists the entries with user, payload as a JSON string and ms timestamps as strings; filters, sorts and pages', async () => {
    const tenant = await createTenant();
    const before = Date.now();
    const app = (
      await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
        token: tenant.token,
        body: { name: 'audited', env: 'dev' },
      })
    ).body;
    await api('POST', `/api/v1/app/${app.applicationId}`, { token: tenant.token, body: { name: 'renamed' } });
    const second = await addUserTo(tenant.orgId);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const middle = Date.now();
    await api('POST', `/api/v1/app/${app.applicationId}/env`, { token: second.token, body: { env: 'prod' } });

    const all = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: tenant.token });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ totalCount: '4', nextPageToken: '5' }); // page 5: past the end, "-1"
    const [first] = all.body.auditRecords;
    expect(first).toMatchObject({
      userActivityType: 'APPLICATION_ADDED',
      organizationId: tenant.orgId,
      userId: tenant.userId,
      userName: 'Test User',
    });
    expect(first.userEmail).toMatch(/@example\.test$/);
    expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof first.timestamp).toBe('string');
    expect(Number(first.timestamp)).toBeGreaterThanOrEqual(before);
    expect(JSON.parse(first.payload)).toMatchObject({
      applicationId: app.applicationId,
      appName: 'audited',
      envName: 'dev',
    });

    const query = (q: Record<string, string | number | string[]>) =>
      api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: tenant.token, query: q });
    expect((await query({ types: 'ENVIRONMENT_ADDED,APPLICATION_MODIFIED' })).body.totalCount).toBe('3');
    expect((await query({ types: ['ENVIRONMENT_ADDED', 'APPLICATION_MODIFIED'] })).body.totalCount).toBe('3');
    expect((await query({ start: middle })).body.auditRecords.map((r: { userId: string }) => r.userId)).toEqual([
      second.userId,
    ]);
    expect((await query({ end: middle - 1 })).body.totalCount).toBe('3');
    const bySecond = await query({ email: 'USER-' });
    expect(Number(bySecond.body.totalCount)).toBe(4); // both fixture users' addresses start with "user-"
    expect((await query({ name: 'nobody' })).body.totalCount).toBe('0');
    const desc = await query({ sortField: 'createdDate', sortDir: 'DESC' });
    expect(desc.body.auditRecords.map((r: { id: string }) => r.id)).toEqual(
      [...all.body.auditRecords].reverse().map((r: { id: string }) => r.id),
    );

    const pages: string[] = [];
    for (let token = '0'; token !== '-1';) {
      const out = await query({ pageSize: 3, pageToken: token });
      pages.push(...out.body.auditRecords.map((r: { id: string }) => r.id));
      token = out.body.nextPageToken;
    }
    expect(pages).toEqual(all.body.auditRecords.map((r: { id: string }) => r.id));
  });

  it('needs read:audit, keeps organizations apart and refuses invalid parameters', async () => {
    const tenant = await createTenant();
    await api('POST', `/api/v1/org/${tenant.orgId}/app`, { token: tenant.token, body: { name: 'x' } });
    const reader = await addUserTo(tenant.orgId, ['read:application']);
    expect((await api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: reader.token })).status).toBe(401);
    const other = await createTenant();
    expect((await api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: other.token })).status).toBe(401);
    expect((await api('GET', `/api/v1/org/${other.orgId}/audit`, { token: other.token })).body).toMatchObject({
      auditRecords: [],
      totalCount: '0',
      nextPageToken: '1',
    });
    for (const [name, value] of [
      ['types', 'NOT_A_TYPE'],
      ['pageSize', '0'],
      ['pageToken', '-2'],
      ['sortField', 'name'],
      ['sortDir', 'up'],
      ['start', 'yesterday'],
      ['email', 'x'.repeat(65)],
    ]) {
      const out = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, {
        token: tenant.token,
        query: { [name]: value },
      });
      expect(out.status, name).toBe(400);
      expect(out.body.message).toContain(name);
    }
  });
});
