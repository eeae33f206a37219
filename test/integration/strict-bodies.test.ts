import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { createApp } from './scan-helpers.ts';

// Security-sensitive bodies refuse unknown fields: a misspelt field is a 400 naming it, and the
// request changes nothing, rather than a 200 that silently drops it (a key left unnarrowed, an SLA unchanged).

type Body = Record<string, unknown>;

/** Each body is refused with 400 naming the unknown field, and `read` answers the same before and after. */
async function refusedChangingNothing(
  read: () => Promise<unknown>,
  send: (body: Body) => Promise<{ status: number; body: { message?: string }; text: string }>,
  cases: [Body, string][],
) {
  const before = await read();
  for (const [body, field] of cases) {
    const out = await send(body);
    expect(out.status, `${JSON.stringify(body)}: ${out.text}`).toBe(400);
    expect(out.body.message).toContain(`${field}: unknown field`);
  }
  expect(await read()).toEqual(before);
}

const as = (tenant: Pick<Tenant, 'token'>) => ({ token: tenant.token });

describe('unknown fields in security-sensitive bodies', () => {
  it('API keys: a misspelt permissions does not make a key of all permissions', async () => {
    const tenant = await createTenant();
    await refusedChangingNothing(
      async () => (await api('GET', '/api/v1/user/keys', as(tenant))).body,
      (body) => api('POST', '/api/v1/user/keys', { ...as(tenant), body }),
      [
        [{ name: 'CI', permisions: ['read:application'] }, 'body.permisions'],
        [{ name: 'CI', applicationID: randomUUID() }, 'body.applicationID'],
      ],
    );
  });

  it("roles: a member's role does not change on a body with an unknown field", async () => {
    const tenant = await createTenant();
    const member = await addUserTo(tenant.orgId, ['read:application']);
    await refusedChangingNothing(
      async () => (await api('GET', `/api/v1/org/${tenant.orgId}/roles`, as(tenant))).body.members,
      (body) => api('PUT', `/api/v1/org/${tenant.orgId}/members/${member.userId}`, { ...as(tenant), body }),
      [
        [{ role: 'READ_ONLY', teamIds: [randomUUID()] }, 'body.teamIds'],
        [{ permissions: ['read:scan'], owner: true }, 'body.owner'],
      ],
    );
  });

  it('invitations: creating and accepting refuse unknown fields, and the invitation stays pending', async () => {
    const tenant = await createTenant();
    const path = `/api/v1/org/${tenant.orgId}/invitations`;
    const pending = async () => (await api('GET', path, as(tenant))).body;
    const email = `invitee-${randomUUID()}@example.test`;
    await refusedChangingNothing(pending, (body) => api('POST', path, { ...as(tenant), body }), [
      [{ email, role: 'MEMBER', expiresIn: 5 }, 'body.expiresIn'],
    ]);
    const { token } = (await api('POST', path, { ...as(tenant), body: { email } })).body;
    await refusedChangingNothing(pending, (body) => api('POST', '/api/v1/invitations/accept', { body }), [
      [{ token, fullname: 'Ines' }, 'body.fullname'],
    ]);
    const elsewhere = await createTenant();
    await refusedChangingNothing(
      pending,
      (body) => api('POST', '/api/v1/user/invitations/accept', { ...as(elsewhere), body }),
      [[{ token, userId: elsewhere.userId }, 'body.userId']],
    );
    expect((await pending()).invitations).toHaveLength(1);
  });

  it('SLA: an unknown severity or setting, nested too, is refused and the policy stays as it was', async () => {
    const tenant = await createTenant();
    const days = { High: 7, Medium: 30, Low: 90 };
    const orgSla = `/api/v1/org/${tenant.orgId}/sla`;
    await refusedChangingNothing(
      async () => (await api('GET', orgSla, as(tenant))).body,
      (body) => api('PUT', orgSla, { ...as(tenant), body }),
      [
        [{ days: { ...days, Critical: 5 } }, 'body.days.Critical'],
        [{ days, riskAcceptence: { maxDays: 5 } }, 'body.riskAcceptence'],
        [{ days, riskAcceptance: { maxDays: 30, default: 10 } }, 'body.riskAcceptance.default'],
      ],
    );
    const appId = await createApp(tenant);
    const appSla = `/api/v1/app/${appId}/sla`;
    await refusedChangingNothing(
      async () => (await api('GET', appSla, as(tenant))).body,
      (body) => api('PUT', appSla, { ...as(tenant), body }),
      [
        [{ days: { Critical: 5 } }, 'body.days.Critical'],
        [{ days: { High: 5 }, environments: {} }, 'body.environments'],
      ],
    );
  });

  it('webhooks and integration settings: unknown fields, in the custom header too, are refused', async () => {
    const tenant = await createTenant();
    const settings = `/api/v1/org/${tenant.orgId}/integrations/settings`;
    const readSettings = async () => (await api('GET', settings, as(tenant))).body;
    await refusedChangingNothing(readSettings, (body) => api('PUT', settings, { ...as(tenant), body }), [
      [{ allowPrivateNetworks: false, allowLinkLocal: true }, 'body.allowLinkLocal'],
    ]);
    expect((await api('PUT', settings, { ...as(tenant), body: { allowPrivateNetworks: true } })).status).toBe(200);

    const hooks = `/api/v1/org/${tenant.orgId}/webhooks`;
    const valid = { url: 'http://127.0.0.1:9/hook', events: ['scanCompleted'] };
    const list = async () => (await api('GET', hooks, as(tenant))).body;
    await refusedChangingNothing(list, (body) => api('POST', hooks, { ...as(tenant), body }), [
      [{ ...valid, teamID: randomUUID() }, 'body.teamID'],
      [{ ...valid, customHeader: { name: 'X-Token', value: 'v', sensitive: true } }, 'body.customHeader.sensitive'],
    ]);
    const created = await api('POST', hooks, { ...as(tenant), body: valid });
    expect(created.status, created.text).toBe(200);
    const hook = `${hooks}/${created.body.webhook.id}`;
    await refusedChangingNothing(list, (body) => api('PUT', hook, { ...as(tenant), body }), [
      [{ enable: false }, 'body.enable'],
      [{ events: ['scanStarted'], applicationIDs: [randomUUID()] }, 'body.applicationIDs'],
    ]);
  });

  it('issue trackers: a connection with an unknown field, in its auto-promotion too, is not made', async () => {
    const tenant = await createTenant();
    const trackers = `/api/v1/org/${tenant.orgId}/integrations/trackers`;
    const github = { kind: 'github', repository: 'acme/app', token: 'ghp_secret' };
    await refusedChangingNothing(
      async () => (await api('GET', trackers, as(tenant))).body,
      (body) => api('POST', trackers, { ...as(tenant), body }),
      [
        [{ ...github, baseURL: 'http://169.254.169.254/' }, 'body.baseURL'],
        [{ ...github, autoPromote: { minSeverity: 'High', applicationIds: [] } }, 'body.autoPromote.applicationIds'],
      ],
    );
  });

  it('single sign-on: the provider setting, its mappings and the sign-in steps refuse unknown fields', async () => {
    const tenant = await createTenant();
    const sso = `/api/v1/org/${tenant.orgId}/sso`;
    const setting = {
      issuer: 'https://idp.example',
      clientId: 'client',
      clientSecret: 'secret',
      redirectUri: 'https://dashboard.example/sso/callback',
    };
    await refusedChangingNothing(
      async () => (await api('GET', sso, as(tenant))).body,
      (body) => api('PUT', sso, { ...as(tenant), body }),
      [
        [{ ...setting, defaultRol: 'OWNER' }, 'body.defaultRol'],
        [
          { ...setting, groupRoles: [{ group: 'admins', role: 'ADMIN', teamId: randomUUID() }] },
          'body.groupRoles.0.teamId',
        ],
        [{ ...setting, groupTeams: [{ group: 'dev', teamId: randomUUID(), role: 'OWNER' }] }, 'body.groupTeams.0.role'],
      ],
    );
    const start = await api('POST', '/api/v1/auth/sso/start', {
      body: { organizationId: tenant.orgId, returnTo: 'https://evil.example' },
    });
    expect(start.status).toBe(400);
    expect(start.body.message).toContain('body.returnTo: unknown field');
    const callback = await api('POST', '/api/v1/auth/sso/callback', {
      body: { query: 'code=x&state=y', binding: 'a'.repeat(43), userId: tenant.userId },
    });
    expect(callback.status).toBe(400);
    expect(callback.body.message).toContain('body.userId: unknown field');
  });
});
