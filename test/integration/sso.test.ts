import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, baseUrl } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { addMember } from '../../shared/identity/admin.ts';
import { newTeam, readTeam } from './team-helpers.ts';
import { getItem, queryAll } from '../../shared/db/query.ts';
import { keys } from '../../shared/db/keys.ts';
import { permissionsOfRole } from '../../shared/context/roles.ts';
import { signInAtProvider, startForgingProvider, startOidcProvider, type RunningProvider } from './oidc-helpers.ts';

// Single sign-on (docs/IDENTITY.md "Single sign-on") against a real OpenID Connect provider on loopback
// (oidc-provider), through the service's operations over HTTP: the configuration, the code flow with PKCE to a
// provisioned user and the same access token as login, refresh, sign-out, and each kind of forged or replayed answer
// refused by openid-client or by the single-use sign-in record.

const sso = (orgId: string) => `/api/v1/org/${orgId}/sso`;
const redirectUri = () => `${baseUrl()}/sso/callback`;

async function allowPrivate(tenant: Tenant) {
  const out = await api('PUT', `/api/v1/org/${tenant.orgId}/integrations/settings`, {
    token: tenant.token,
    body: { allowPrivateNetworks: true },
  });
  expect(out.status, out.text).toBe(200);
}

async function configure(tenant: Tenant, provider: RunningProvider, extra: Record<string, unknown> = {}) {
  const out = await api('PUT', sso(tenant.orgId), {
    token: tenant.token,
    body: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      redirectUri: redirectUri(),
      scopes: ['openid', 'email', 'profile'],
      ...extra,
    },
  });
  expect(out.status, out.text).toBe(200);
  return out.body;
}

async function start(orgId: string) {
  const out = await api('POST', '/api/v1/auth/sso/start', { body: { organizationId: orgId } });
  expect(out.status, out.text).toBe(200);
  return out.body as { authorizationUrl: string; binding: string };
}

const callback = (query: string, binding: string) =>
  api('POST', '/api/v1/auth/sso/callback', { body: { query, binding } });

const createTeam = async (tenant: Tenant, name: string) => (await newTeam(tenant.orgId, tenant.token, { name })).id;

describe('single sign-on with a real OpenID Connect provider', () => {
  let tenant: Tenant;
  let provider: RunningProvider;
  let engineers: string;
  let auditors: string;

  beforeAll(async () => {
    provider = await startOidcProvider(redirectUri(), {
      alice: { email: 'alice@sso-example.test', name: 'Alice', groups: ['hawk-admins', 'engineering'] },
      bob: { email: 'bob@sso-example.test', groups: ['engineering'] },
      mallory: { email: 'mallory@elsewhere.test', groups: [] },
      carol: { email: 'carol@sso-example.test', groups: ['auditors', 'ci'] },
    });
    tenant = await createTenant();
    await allowPrivate(tenant);
    engineers = await createTeam(tenant, `engineering-${Date.now()}`);
    auditors = await createTeam(tenant, `auditors-${Date.now()}`);
    await configure(tenant, provider, {
      allowedEmailDomains: ['sso-example.test'],
      groupRoles: [
        { group: 'hawk-admins', role: 'ADMIN' },
        { group: 'auditors', role: 'READ_ONLY' },
        { group: 'ci', role: 'SCANNER' },
      ],
      groupTeams: [
        { group: 'engineering', teamId: engineers },
        { group: 'audit', teamId: auditors },
      ],
    });
  });
  afterAll(() => provider?.close());

  it('shows the setting without its secret, and stores the secret sealed', async () => {
    const got = await api('GET', sso(tenant.orgId), { token: tenant.token });
    expect(got.status, got.text).toBe(200);
    expect(got.body).toMatchObject({
      configured: true,
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecretSet: true,
      redirectUri: redirectUri(),
      groupsClaim: 'groups',
      defaultRole: 'MEMBER',
      enabled: true,
    });
    expect(got.text).not.toContain(provider.clientSecret);
    const items = await queryAll({ partition: `ORG#${tenant.orgId}`, skPrefix: '#SSO' });
    expect(items).toHaveLength(1);
    expect(JSON.stringify(items)).not.toContain(provider.clientSecret);
    const audit = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, {
      token: tenant.token,
      query: { types: 'ORG_SETTINGS_MODIFIED' },
    });
    expect(audit.status, audit.text).toBe(200);
    expect(JSON.stringify(audit.body)).toContain('sso');
  });

  it('signs a new user in: provisioned with the mapped role and teams, the same token as login, refresh, sign-out', async () => {
    const { authorizationUrl, binding } = await start(tenant.orgId);
    const url = new URL(authorizationUrl);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toBe(redirectUri());
    expect(url.searchParams.get('nonce')).toBeTruthy();
    const back = await signInAtProvider(authorizationUrl, 'alice');
    expect(back.origin + back.pathname).toBe(redirectUri());
    expect(back.searchParams.get('code')).toBeTruthy();

    const signedIn = await callback(back.search, binding);
    expect(signedIn.status, signedIn.text).toBe(200);
    const token = signedIn.body.token as string;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(30 * 60);
    expect(claims.akid).toMatch(/^sso\./);

    const user = await api('GET', '/api/v1/user', { token });
    expect(user.status, user.text).toBe(200);
    expect(user.body.user.external.email).toBe('alice@sso-example.test');
    const membership = user.body.user.external.organizations.find(
      (o: { organization: { id: string } }) => o.organization.id === tenant.orgId,
    );
    expect(membership.role).toBe('ADMIN');
    const team = await readTeam(tenant.orgId, tenant.token, engineers);
    expect(team.users.map((u) => u.userId)).toContain(user.body.user.external.id);
    expect((await readTeam(tenant.orgId, tenant.token, auditors)).users ?? []).toEqual([]);
    const joined = await api('GET', `/api/v1/org/${tenant.orgId}/audit`, {
      token: tenant.token,
      query: { types: 'USER_JOINED_ORG' },
    });
    expect(JSON.stringify(joined.body)).toContain('alice@sso-example.test');

    // The session refreshes like a key's, and the user can manage their own keys from it.
    const refreshed = await api('GET', '/api/v1/auth/refresh-token', { token });
    expect(refreshed.status, refreshed.text).toBe(200);
    const keys = await api('GET', '/api/v1/user/keys', { token: refreshed.body.token });
    expect(keys.status, keys.text).toBe(200);

    // A second sign-in of the same person is the same user.
    const again = await start(tenant.orgId);
    const second = await callback((await signInAtProvider(again.authorizationUrl, 'alice')).search, again.binding);
    expect(second.status, second.text).toBe(200);
    const secondUser = await api('GET', '/api/v1/user', { token: second.body.token });
    expect(secondUser.body.user.external.id).toBe(user.body.user.external.id);

    // Sign-out: the token is refused at once and cannot be refreshed; the other session lives on.
    const out = await api('POST', '/api/v1/auth/sign-out', { token: refreshed.body.token });
    expect(out.status, out.text).toBe(200);
    expect((await api('GET', `/api/v1/org/${tenant.orgId}/sso`, { token: refreshed.body.token })).status).toBe(401);
    expect((await api('GET', '/api/v1/auth/refresh-token', { token: refreshed.body.token })).status).toBe(401);
    expect((await api('GET', '/api/v1/user', { token: second.body.token })).status).toBe(200);
  });

  it('gives the default role without a mapped group, and refuses an e-mail domain the organization does not allow', async () => {
    const membershipOf = (userId: string) => {
      const { pk, sk } = keys.membership(tenant.orgId, userId);
      return getItem({ pk, sk });
    };
    const bobStart = await start(tenant.orgId);
    const bob = await callback((await signInAtProvider(bobStart.authorizationUrl, 'bob')).search, bobStart.binding);
    expect(bob.status, bob.text).toBe(200);
    const user = await api('GET', '/api/v1/user', { token: bob.body.token });
    const org = user.body.user.external.organizations.find(
      (o: { organization: { id: string } }) => o.organization.id === tenant.orgId,
    );
    expect(org.role).toBe('MEMBER');
    expect(org.permissions).not.toContain('WRITE_MEMBER');
    expect((await api('GET', sso(tenant.orgId), { token: bob.body.token })).status).toBe(401);
    // The named role's permissions, the same as an invited member's (shared/context/roles.ts).
    const bobMembership = await membershipOf(user.body.user.external.id);
    expect(bobMembership).toMatchObject({
      role: 'MEMBER',
      roleName: 'MEMBER',
      permissions: permissionsOfRole('MEMBER'),
    });

    // Groups mapped to read-only and scanner: the stronger for a person, read-only.
    const carolStart = await start(tenant.orgId);
    const carol = await callback(
      (await signInAtProvider(carolStart.authorizationUrl, 'carol')).search,
      carolStart.binding,
    );
    expect(carol.status, carol.text).toBe(200);
    const carolUser = await api('GET', '/api/v1/user', { token: carol.body.token });
    expect(await membershipOf(carolUser.body.user.external.id)).toMatchObject({
      role: 'MEMBER',
      roleName: 'READ_ONLY',
      permissions: permissionsOfRole('READ_ONLY'),
    });
    expect((await api('GET', `/api/v1/org/${tenant.orgId}/sla`, { token: carol.body.token })).status).toBe(200);
    const write = await api('POST', `/api/v1/org/${tenant.orgId}/app`, {
      token: carol.body.token,
      body: { name: 'not allowed', env: 'dev' },
    });
    expect(write.status).toBe(401);

    const malloryStart = await start(tenant.orgId);
    const mallory = await callback(
      (await signInAtProvider(malloryStart.authorizationUrl, 'mallory')).search,
      malloryStart.binding,
    );
    expect(mallory.status).toBe(401);
    expect(mallory.body.message).toContain('elsewhere.test');
  });

  it('refuses a replayed callback, a replayed code, a state mismatch and another tab', async () => {
    const first = await start(tenant.orgId);
    const back = await signInAtProvider(first.authorizationUrl, 'bob');
    expect((await callback(back.search, first.binding)).status).toBe(200);
    const replay = await callback(back.search, first.binding);
    expect(replay.status).toBe(401);
    expect(replay.body.message).toMatch(/already used|unknown/);

    // The same code under a new sign-in's state: the provider refuses it (used once, and another PKCE verifier).
    const second = await start(tenant.orgId);
    const state = new URL(second.authorizationUrl).searchParams.get('state')!;
    const reused = new URLSearchParams(back.search);
    reused.set('state', state);
    const replayedCode = await callback(`?${reused}`, second.binding);
    expect(replayedCode.status).toBe(401);
    expect(replayedCode.body.message).toContain('invalid_grant');

    // A state the service never issued, and one that another tab's binding does not match.
    const third = await start(tenant.orgId);
    const backThird = await signInAtProvider(third.authorizationUrl, 'bob');
    const forgedState = new URLSearchParams(backThird.search);
    forgedState.set('state', 'not-the-state-we-issued');
    expect((await callback(`?${forgedState}`, third.binding)).status).toBe(401);
    const fourth = await start(tenant.orgId);
    const otherTab = await callback(backThird.search, fourth.binding);
    expect(otherTab.status).toBe(401);
    expect(otherTab.body.message).toContain('another browser tab');
  });

  it('refuses bad input and unknown organizations with 4xx', async () => {
    expect((await api('POST', '/api/v1/auth/sso/start', { body: { organizationId: 'nope' } })).status).toBe(400);
    const none = await createTenant();
    const missing = await api('POST', '/api/v1/auth/sso/start', { body: { organizationId: none.orgId } });
    expect(missing.status).toBe(404);
    expect((await callback('?code=x', 'a'.repeat(43))).status).toBe(401);
    expect((await api('POST', '/api/v1/auth/sso/callback', { body: { query: 'x', binding: 'short' } })).status).toBe(
      400,
    );
  });
});

describe('single sign-on configuration', () => {
  it('refuses an issuer on loopback unless private networks are allowed, and one that is not a provider', async () => {
    const tenant = await createTenant();
    const provider = await startOidcProvider('http://127.0.0.1:1/sso/callback', {});
    try {
      const body = {
        issuer: provider.issuer,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        redirectUri: 'http://127.0.0.1:1/sso/callback',
      };
      const refused = await api('PUT', sso(tenant.orgId), { token: tenant.token, body });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/https|private/);
      await allowPrivate(tenant);
      const notProvider = await api('PUT', sso(tenant.orgId), {
        token: tenant.token,
        body: { ...body, issuer: `${baseUrl()}/nothing-here` },
      });
      expect(notProvider.status).toBe(400);
      expect(notProvider.body.message).toContain('discovery');
      const metadata = await api('PUT', sso(tenant.orgId), {
        token: tenant.token,
        body: { ...body, issuer: 'http://169.254.169.254/' },
      });
      expect(metadata.status).toBe(400);
      expect(metadata.body.message).toContain('metadata');
      expect((await api('PUT', sso(tenant.orgId), { token: tenant.token, body })).status).toBe(200);
      // Without the secret, the stored one is kept; the issuer cannot change without one.
      const { clientSecret: _secret, ...withoutSecret } = body;
      const kept = await api('PUT', sso(tenant.orgId), {
        token: tenant.token,
        body: { ...withoutSecret, groupsClaim: 'roles' },
      });
      expect(kept.status, kept.text).toBe(200);
      expect(kept.body.groupsClaim).toBe('roles');
      const moved = await api('PUT', sso(tenant.orgId), {
        token: tenant.token,
        body: { ...withoutSecret, issuer: 'https://elsewhere.example' },
      });
      expect(moved.status).toBe(400);
      const removed = await api('DELETE', sso(tenant.orgId), { token: tenant.token });
      expect(removed.status, removed.text).toBe(200);
      expect((await api('GET', sso(tenant.orgId), { token: tenant.token })).body).toMatchObject({
        configured: false,
        issuer: '',
        clientSecretSet: false,
      });
    } finally {
      await provider.close();
    }
  });

  it('stops sign-in when private networks are no longer allowed, and bounds what the provider answers', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const provider = await startOidcProvider('http://127.0.0.1:1/sso/callback', {});
    const huge = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ padding: 'x'.repeat(400 * 1024) }));
    });
    await new Promise<void>((resolve) => huge.listen(0, '127.0.0.1', resolve));
    try {
      await configure(tenant, provider, { redirectUri: 'http://127.0.0.1:1/sso/callback' });
      const tooBig = await api('PUT', sso(tenant.orgId), {
        token: tenant.token,
        body: {
          issuer: `http://127.0.0.1:${(huge.address() as AddressInfo).port}`,
          clientId: 'c',
          clientSecret: 's',
          redirectUri: 'http://127.0.0.1:1/sso/callback',
        },
      });
      expect(tooBig.status).toBe(400);
      expect(tooBig.body.message).toContain('more than');
      const closed = await api('PUT', `/api/v1/org/${tenant.orgId}/integrations/settings`, {
        token: tenant.token,
        body: { allowPrivateNetworks: false },
      });
      expect(closed.status, closed.text).toBe(200);
      const started = await api('POST', '/api/v1/auth/sso/start', { body: { organizationId: tenant.orgId } });
      expect(started.status).toBe(424);
      expect(started.body.message).toMatch(/https|private/);
    } finally {
      huge.closeAllConnections();
      huge.close();
      await provider.close();
    }
  });

  it('refuses a provider whose discovery names a javascript:, data: or file: endpoint (400 saved, 424 later)', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const forger = await startForgingProvider();
    try {
      const body = {
        issuer: forger.issuer,
        clientId: forger.clientId,
        clientSecret: forger.clientSecret,
        redirectUri: redirectUri(),
      };
      for (const [field, value] of [
        ['authorization_endpoint', 'javascript:alert(document.domain)'],
        ['token_endpoint', 'data:text/html,<script>alert(1)</script>'],
        ['jwks_uri', 'file:///etc/passwd'],
      ]) {
        forger.publish({ [field]: value });
        const refused = await api('PUT', sso(tenant.orgId), { token: tenant.token, body });
        expect(refused.status, refused.text).toBe(400);
        expect(refused.body.message).toContain(field);
        expect((await api('GET', sso(tenant.orgId), { token: tenant.token })).body.configured).toBe(false);
      }
      forger.publish({});
      expect((await api('PUT', sso(tenant.orgId), { token: tenant.token, body })).status).toBe(200);
      // The metadata changes after it was saved (and before any sign-in kept it): the unauthenticated start says so.
      forger.publish({ authorization_endpoint: 'javascript:alert(document.domain)' });
      const started = await api('POST', '/api/v1/auth/sso/start', { body: { organizationId: tenant.orgId } });
      expect(started.status, started.text).toBe(424);
      expect(started.body.message).toContain('authorization_endpoint');
    } finally {
      await forger.close();
    }
  });

  it("fetches the provider's discovery once for many sign-in starts (kept five minutes)", async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const forger = await startForgingProvider();
    try {
      await configure(tenant, forger);
      const saved = forger.discoveries();
      for (let i = 0; i < 4; i++) await start(tenant.orgId);
      expect(forger.discoveries() - saved).toBe(1);
      // A changed setting is discovered again at once.
      await configure(tenant, forger, { groupsClaim: 'roles' });
      const changed = forger.discoveries();
      await start(tenant.orgId);
      await start(tenant.orgId);
      expect(forger.discoveries() - changed).toBe(1);
    } finally {
      await forger.close();
    }
  });

  it('takes an owner to change: a member manager is refused (403) and nothing changes; the default role is capped', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const forger = await startForgingProvider();
    try {
      await configure(tenant, forger);
      const team = await createTeam(tenant, `owners-${Date.now()}`);
      const before = (await api('GET', sso(tenant.orgId), { token: tenant.token })).body;
      const escalation = {
        issuer: forger.issuer,
        clientId: forger.clientId,
        redirectUri: redirectUri(),
        groupRoles: [{ group: 'everyone', role: 'OWNER' }],
        groupTeams: [{ group: 'everyone', teamId: team }],
        defaultRole: 'ADMIN',
      };
      const manager = await addUserTo(tenant.orgId, ['read:member', 'write:member']);
      const refused = await api('PUT', sso(tenant.orgId), { token: manager.token, body: escalation });
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.message).toContain('owner');
      expect((await api('DELETE', sso(tenant.orgId), { token: manager.token })).status).toBe(403);
      expect((await api('GET', sso(tenant.orgId), { token: manager.token })).body).toEqual(before);

      // Once the organization has an owner, its admins are refused too; the owner may map a group to OWNER, but no
      // default role above MEMBER.
      const owner = await addUserTo(tenant.orgId);
      await addMember({ organizationId: tenant.orgId, userId: owner.userId, roleName: 'OWNER', replace: true });
      expect((await api('PUT', sso(tenant.orgId), { token: tenant.token, body: escalation })).status).toBe(403);
      const capped = await api('PUT', sso(tenant.orgId), { token: owner.token, body: escalation });
      expect(capped.status, capped.text).toBe(400);
      expect(capped.body.message).toContain('defaultRole');
      expect((await api('GET', sso(tenant.orgId), { token: owner.token })).body).toEqual(before);
      const saved = await api('PUT', sso(tenant.orgId), {
        token: owner.token,
        body: { ...escalation, defaultRole: 'READ_ONLY' },
      });
      expect(saved.status, saved.text).toBe(200);
      expect(saved.body.groupRoles).toEqual([{ group: 'everyone', role: 'OWNER' }]);
    } finally {
      await forger.close();
    }
  });

  it('needs write:member, and keeps each organization to its own setting', async () => {
    const reader = await createTenant({ permissions: ['read:member', 'read:application'] });
    expect((await api('GET', sso(reader.orgId), { token: reader.token })).status).toBe(401);
    const owner = await createTenant();
    const stranger = await createTenant();
    expect((await api('GET', sso(owner.orgId), { token: stranger.token })).status).toBe(401);
    const badTeam = await api('PUT', sso(owner.orgId), {
      token: owner.token,
      body: {
        issuer: 'https://idp.example',
        clientId: 'c',
        clientSecret: 's',
        redirectUri: 'https://hawk.example/sso/callback',
        groupTeams: [{ group: 'g', teamId: '00000000-0000-4000-8000-000000000000' }],
      },
    });
    expect(badTeam.status).toBe(404);
  });
});

describe('single sign-on refuses forged ID tokens (openid-client checks them)', () => {
  let tenant: Tenant;
  let forger: Awaited<ReturnType<typeof startForgingProvider>>;

  beforeAll(async () => {
    forger = await startForgingProvider();
    tenant = await createTenant();
    await allowPrivate(tenant);
    await configure(tenant, forger);
  });
  afterAll(() => forger?.close());

  async function attempt(): Promise<{ status: number; message: string }> {
    const { authorizationUrl, binding } = await start(tenant.orgId);
    forger.nonceFrom(authorizationUrl);
    const state = new URL(authorizationUrl).searchParams.get('state')!;
    const out = await callback(`?code=forged-code&state=${encodeURIComponent(state)}`, binding);
    return { status: out.status, message: out.body?.message ?? '' };
  }

  it('accepts a well-formed one (the forger itself is sound)', async () => {
    forger.forge((claims) => claims);
    const out = await attempt();
    expect(out.status, out.message).toBe(200);
  });

  it('refuses a wrong audience', async () => {
    forger.forge((claims) => ({ ...claims, aud: 'another-client' }));
    const out = await attempt();
    expect(out.status).toBe(401);
    expect(out.message).toMatch(/"aud"/);
  });

  it('refuses a wrong issuer', async () => {
    forger.forge((claims) => ({ ...claims, iss: 'https://impostor.example' }));
    const out = await attempt();
    expect(out.status).toBe(401);
    expect(out.message).toMatch(/"iss"/);
  });

  it('refuses an expired ID token', async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    forger.forge((claims) => ({ ...claims, iat: past - 300, exp: past }));
    const out = await attempt();
    expect(out.status).toBe(401);
    expect(out.message).toMatch(/"exp"/);
  });

  it('refuses a nonce mismatch', async () => {
    forger.forge((claims) => ({ ...claims, nonce: 'another-nonce' }));
    const out = await attempt();
    expect(out.status).toBe(401);
    expect(out.message).toMatch(/"nonce"/);
  });
});

describe("single sign-on never takes over an account on a provider's word", () => {
  let victim: Tenant & { email: string };
  let attacker: Tenant;
  let provider: RunningProvider;
  const accounts: Record<string, { email: string; emailVerified?: boolean }> = {};

  const signIn = async (login: string) => {
    const { authorizationUrl, binding } = await start(attacker.orgId);
    return callback((await signInAtProvider(authorizationUrl, login)).search, binding);
  };
  const identityItem = (subject: string) => getItem(keys.ssoIdentity(attacker.orgId, provider.issuer, subject));
  const membership = (orgId: string, userId: string) => {
    const { pk, sk } = keys.membership(orgId, userId);
    return getItem({ pk, sk });
  };
  /** What a session reaches: the organizations /user lists, the victim organization's roles, a new API key. */
  const reach = async (token: string) => ({
    organizations: (await api('GET', '/api/v1/user', { token })).body.user.external.organizations.map(
      (o: { organization: { id: string } }) => o.organization.id,
    ),
    victimOrg: (await api('GET', `/api/v1/org/${victim.orgId}/roles`, { token })).status,
    newKey: (await api('POST', '/api/v1/user/keys', { token, body: { name: 'lasting' } })).status,
  });

  beforeAll(async () => {
    const tenant = await createTenant();
    const user = await api('GET', '/api/v1/user', { token: tenant.token });
    victim = { ...tenant, email: user.body.user.external.email };
    provider = await startOidcProvider(redirectUri(), accounts);
    accounts.victim = { email: victim.email, emailVerified: true };
    attacker = await createTenant();
    await allowPrivate(attacker);
    await configure(attacker, provider);
  });
  afterAll(() => provider?.close());

  it("issues no session and links nothing for another account's verified address, allowed domain or not", async () => {
    for (const extra of [{}, { allowedEmailDomains: [victim.email.split('@')[1]] }]) {
      await configure(attacker, provider, extra);
      const out = await signIn('victim');
      expect(out.status, out.text).toBe(200);
      expect(out.body.token).toBe('');
      expect(out.body.linkTicket).toMatch(/^[\w-]+\.[\w-]{43}$/);
      expect(await identityItem('victim')).toBeUndefined();
      expect(await membership(attacker.orgId, victim.userId)).toBeUndefined();
    }
  });

  it("links only when the account confirms with its own credentials; the session then reaches the provider's organization only", async () => {
    const { linkTicket } = (await signIn('victim')).body;
    const confirm = (token: string | undefined, ticket = linkTicket) =>
      api('POST', '/api/v1/auth/sso/link', { token, body: { ticket } });
    expect((await confirm(undefined)).status).toBe(401);
    const byAttacker = await confirm(attacker.token);
    expect(byAttacker.status).toBe(403);
    expect(byAttacker.body.message).toContain('another account');
    const [payload, signature] = linkTicket.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), userId: attacker.userId }),
    ).toString('base64url');
    expect((await confirm(attacker.token, `${forged}.${signature}`)).status).toBe(400);
    expect(
      (await api('POST', '/api/v1/auth/sso/link', { token: victim.token, body: { ticket: linkTicket, x: 1 } })).status,
    ).toBe(400);
    expect(await identityItem('victim')).toBeUndefined();

    const confirmed = await confirm(victim.token);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(await identityItem('victim')).toMatchObject({ userId: victim.userId, organizationId: attacker.orgId });
    expect((await confirm(victim.token)).status).toBe(409);

    // Signed in through the attacker's provider now: the victim's account, but only in the provider's organization.
    const session = await signIn('victim');
    expect(session.status, session.text).toBe(200);
    const claims = JSON.parse(Buffer.from(session.body.token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: victim.userId, org: attacker.orgId });
    expect(await reach(session.body.token)).toEqual({ organizations: [attacker.orgId], victimOrg: 401, newKey: 401 });
    const refreshed = await api('GET', '/api/v1/auth/refresh-token', { token: session.body.token });
    expect((await reach(refreshed.body.token)).victimOrg).toBe(401);
    // Its own key still reaches both; a single sign-on session cannot confirm a link.
    expect((await reach(victim.token)).organizations.sort()).toEqual([attacker.orgId, victim.orgId].sort());
    expect((await confirm(session.body.token)).status).toBe(403);
  });

  it("keeps an account made by a provider to its organization, and never blocks the address's owner elsewhere", async () => {
    const email = `squat-${Date.now()}@example.test`;
    accounts.squat = { email };
    const first = await signIn('squat');
    expect(first.status, first.text).toBe(200);
    const squatter = (await api('GET', '/api/v1/user', { token: first.body.token })).body.user.external.id;
    const invited = await api('POST', `/api/v1/org/${victim.orgId}/invitations`, {
      token: victim.token,
      body: { email },
    });
    expect(invited.status, invited.text).toBe(200);
    // The provider's session, scoped to its organization, cannot accept it signed in.
    const asUser = await api('POST', '/api/v1/user/invitations/accept', {
      token: first.body.token,
      body: { token: invited.body.token },
    });
    expect(asUser.status, asUser.text).toBe(401);
    // The provider's word claimed no address: its owner accepts with the link alone, as a new account of their own
    // (not the provider's), which the provider's organization never reaches.
    const accepted = await api('POST', '/api/v1/invitations/accept', { body: { token: invited.body.token } });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.member.userId).not.toBe(squatter);
    expect(await membership(victim.orgId, squatter)).toBeUndefined();
    expect(await membership(attacker.orgId, accepted.body.member.userId)).toBeUndefined();
    const again = await signIn('squat');
    expect(again.status, again.text).toBe(200);
    expect(await reach(again.body.token)).toEqual({ organizations: [attacker.orgId], victimOrg: 401, newKey: 401 });
  });
});
