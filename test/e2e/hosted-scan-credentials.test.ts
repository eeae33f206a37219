import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../integration/client.ts';
import { createTenant, addUserTo } from '../integration/fixtures.ts';
import { permissionsOfRole } from '../../shared/context/roles.ts';
import { cloudAppAt, start, waitForEnd, withAgent, passwordLoginTarget } from './hosted-helpers.ts';

// A literal password in a scan configuration was stored and shown to read-only members (the scan page's "Scan
// configuration" panel reads GET /api/v1/app/{appId}/config/{hash}). A literal credential sent or saved moves into
// the application's scan secrets and the configuration keeps a `${NAME}` reference (docs/HOSTED-SCANS.md, "Scan
// secrets"); every read redacts what remains; the agent still logs in with the real value, which it gets with the
// run it takes.

const PASSWORD = 'literal-pass-4711';
let target: Awaited<ReturnType<typeof passwordLoginTarget>>;
beforeAll(async () => {
  process.env.HAWK_WAPITI_ATTACK_SECONDS = '5';
  process.env.HAWK_SCAN_TEST_USER = 'alice';
  target = await passwordLoginTarget(PASSWORD);
});
afterAll(async () => {
  delete process.env.HAWK_SCAN_TEST_USER;
  await target.close();
});

const config = (host: string) => `app:
  env: production
  host: ${host}
  authentication:
    usernamePassword:
      type: FORM
      loginPath: /login
      usernameField: username
      passwordField: password
      scanUsername: \${HAWK_SCAN_TEST_USER}
      scanPassword: ${PASSWORD}
    cookieAuthorization:
      cookieNames: [sid]
    testPath:
      path: /account
      type: BODY
      success: "Signed in as"
`;

describe('credentials in stored scan configurations', { timeout: 300_000 }, () => {
  it("move into the application's scan secrets, out of every read and log, while the hosted scan still logs in with them", async () => {
    const owner = await createTenant();
    const reader = { orgId: owner.orgId, ...(await addUserTo(owner.orgId, permissionsOfRole('READ_ONLY'))) };
    const appId = await cloudAppAt(owner, 'literal-password', target.url);
    const echoed: string[] = [];
    await withAgent(
      owner,
      async () => {
        const started = await start(owner, appId, config(target.url));
        expect(started.status, started.text).toBe(200);
        expect(started.body.movedSecrets).toEqual(['USERNAME_PASSWORD_SCAN_PASSWORD']);
        const done = await waitForEnd(owner, appId);
        expect(done.status, JSON.stringify(done)).toBe('HOSTED_SCANNER_DISCONNECTED');
      },
      { echo: (line) => echoed.push(line) },
    );
    expect(target.logins).toContain(`username=alice&password=${PASSWORD}`);
    const secrets = await api('GET', `/api/v1/app/${appId}/secrets`, { token: reader.token });
    expect(secrets.body.secrets.map((secret: { name: string }) => secret.name)).toEqual([
      'USERNAME_PASSWORD_SCAN_PASSWORD',
    ]);
    expect(echoed.join('\n')).not.toContain(PASSWORD);
    for (const who of [reader, owner]) {
      const log = await api('GET', `/api/v1/app/${appId}/perch/log`, { token: who.token });
      expect(log.text).toContain('login ok');
      expect(log.text).not.toContain(PASSWORD);
    }

    const envs = await api('GET', `/api/v1/app/${appId}/env/list`, { token: owner.token });
    const configHash = envs.body.environments[0].currentScanSummary.configHash as string;
    for (const who of [reader, owner]) {
      const read = await api('GET', `/api/v1/app/${appId}/config/${configHash}`, { token: who.token });
      expect(read.status, read.text).toBe(200);
      expect(read.text).not.toContain(PASSWORD);
      expect(read.body.conf.app.authentication.usernamePassword).toMatchObject({
        scanUsername: '${HAWK_SCAN_TEST_USER}',
        scanPassword: '${USERNAME_PASSWORD_SCAN_PASSWORD}',
        usernameField: 'username',
      });
    }
  });

  it("moves the environment's default configuration's credentials, and refuses it saved with the marker", async () => {
    const owner = await createTenant();
    const reader = { orgId: owner.orgId, ...(await addUserTo(owner.orgId, permissionsOfRole('READ_ONLY'))) };
    const appId = await cloudAppAt(owner, 'default-config', target.url);
    const envs = await api('GET', `/api/v1/app/${appId}/env/list`, { token: owner.token });
    const envId = envs.body.environments[0].environmentId as string;
    const path = `/api/v1/app/${appId}/env/${envId}/config/default`;
    const conf = {
      app: {
        applicationId: appId,
        env: 'production',
        host: target.url,
        authentication: {
          external: { type: 'TOKEN', value: 'token-value-0815' },
          tokenAuthorization: { type: 'HEADER', value: 'Authorization', tokenType: 'Bearer' },
        },
      },
    };
    const saved = await api('POST', path, { token: owner.token, body: { conf } });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.movedSecrets).toEqual(['EXTERNAL_VALUE']);
    for (const who of [reader, owner]) {
      const read = await api('GET', path, { token: who.token });
      expect(read.status, read.text).toBe(200);
      expect(read.text).not.toContain('token-value-0815');
      expect(read.body.conf.app.authentication).toMatchObject({
        external: { type: 'TOKEN', value: '${EXTERNAL_VALUE}' },
        tokenAuthorization: { type: 'HEADER', value: 'Authorization', tokenType: 'Bearer' },
      });
    }
    const read = await api('GET', path, { token: owner.token });
    // Saved back as read: nothing more moves.
    const same = await api('POST', path, { token: owner.token, body: { conf: read.body.conf } });
    expect(same.status, same.text).toBe(200);
    expect(same.body.movedSecrets ?? []).toEqual([]);
    const current = await api('GET', path, { token: owner.token });
    const marked = structuredClone(read.body.conf);
    marked.app.authentication.external.value = '********';
    const back = await api('POST', path, { token: owner.token, body: { conf: marked } });
    expect(back.status).toBe(400);
    expect(back.body.message).toMatch(/^body\.conf: a value reads \*{8}, as reads show a credential/);
    const unchanged = await api('GET', path, { token: owner.token });
    expect(unchanged.body.configHash).toBe(current.body.configHash);
  });
});
