import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { auditEntriesOf, download } from './hosted-assets-helpers.ts';
import { legacyOrganizationConfiguration } from './legacy-configurations.ts';
import { createApp, startScan } from './scan-helpers.ts';
import { permissionsOfRole } from '../../shared/context/roles.ts';
import { heldScanSecrets, resolveScanSecrets } from '../../shared/scans/secret-store.ts';
import { objectKeys } from '../../shared/storage/objects.ts';
import { putObject } from '../../shared/storage/objects-io.ts';

// No read of a stored configuration returns a literal credential, whatever the reader's role (docs/HOSTED-SCANS.md,
// "Scan configurations and their credentials"). Organization scan configurations were served whole through their
// download link, and global configurations were published and served with whatever they held.

const PASSWORD = 'org-literal-pass-0042';
const TOKEN = 'bearer-literal-9931';
const withCredentials = `# the staging login
app:
  env: staging
  host: https://staging.example.test
  authentication:
    usernamePassword:
      type: FORM
      loginPath: /login
      usernameField: user
      passwordField: pass
      scanUsername: alice
      scanPassword: ${PASSWORD} # kept out of every read
hawk:
  config:
    - name: Authorization
      val: Bearer ${TOKEN}
`;

const readOnlyMember = async (owner: Tenant) => ({
  orgId: owner.orgId,
  ...(await addUserTo(owner.orgId, permissionsOfRole('READ_ONLY'))),
});

describe("organization scan configurations' credentials", () => {
  it("move into the organization's scan secrets when saved: no download shows them, to an owner or a read-only member", async () => {
    const owner = await createTenant();
    const reader = await readOnlyMember(owner);
    const saved = await api('POST', `/api/v1/configuration/${owner.orgId}/update`, {
      token: owner.token,
      body: { name: 'staging-login', conf: withCredentials },
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.movedSecrets).toEqual(['USERNAME_PASSWORD_SCAN_PASSWORD', 'HAWK_CONFIG_0_VAL']);

    for (const who of [owner, reader]) {
      const link = await api('GET', `/api/v1/configuration/${owner.orgId}/staging-login`, { token: who.token });
      expect(link.status, link.text).toBe(200);
      const text = (await download(link.body.presignedDownloadUrl)).bytes.toString();
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(TOKEN);
      expect(text).toContain('scanPassword: ${USERNAME_PASSWORD_SCAN_PASSWORD} # kept out of every read');
      expect(text).toContain('val: ${HAWK_CONFIG_0_VAL}');
      expect(text).toContain('# the staging login');
    }
    const secrets = await api('GET', `/api/v1/org/${owner.orgId}/secrets`, { token: reader.token });
    expect(secrets.body.secrets.map((secret: { name: string }) => secret.name).sort()).toEqual([
      'HAWK_CONFIG_0_VAL',
      'USERNAME_PASSWORD_SCAN_PASSWORD',
    ]);
    expect(secrets.text).not.toContain(PASSWORD);
    const entry = (await auditEntriesOf(owner.orgId)).find(
      (e) => e.userActivityType === 'ORGANIZATION_CONFIGURATION_MODIFIED',
    )!;
    expect(JSON.parse(entry.payload).movedSecrets).toEqual(['USERNAME_PASSWORD_SCAN_PASSWORD', 'HAWK_CONFIG_0_VAL']);
    expect(entry.payload).not.toContain(PASSWORD);

    // Saved again as downloaded: nothing more moves, and the secrets keep their values.
    const again = await api('POST', `/api/v1/configuration/${owner.orgId}/update`, {
      token: owner.token,
      body: {
        name: 'staging-login',
        conf: withCredentials
          .replace(PASSWORD, '${USERNAME_PASSWORD_SCAN_PASSWORD}')
          .replace(`Bearer ${TOKEN}`, '${HAWK_CONFIG_0_VAL}'),
      },
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body.movedSecrets).toEqual([]);
  });

  it('a configuration stored with a literal credential before this change is never served: 409 naming where, for every role', async () => {
    const owner = await createTenant();
    const reader = await readOnlyMember(owner);
    await legacyOrganizationConfiguration(owner.orgId, 'legacy', withCredentials);
    for (const who of [owner, reader]) {
      for (const redirect of [false, true]) {
        const link = await api('GET', `/api/v1/configuration/${owner.orgId}/legacy`, {
          token: who.token,
          query: { redirect },
        });
        expect(link.status, link.text).toBe(409);
        expect(link.text).not.toContain(PASSWORD);
        expect(link.body.message).toContain('app.authentication.usernamePassword.scanPassword');
        expect(link.body.message).toContain('npm run migrate');
        expect(link.headers.get('location')).toBeNull();
      }
    }
    // References only (or no credential at all): served as stored.
    await legacyOrganizationConfiguration(
      owner.orgId,
      'references',
      withCredentials.replace(PASSWORD, '${HAWK_SCAN_PASSWORD}').replace(`Bearer ${TOKEN}`, 'Bearer ${HAWK_TOKEN}'),
    );
    const link = await api('GET', `/api/v1/configuration/${owner.orgId}/references`, { token: reader.token });
    expect(link.status, link.text).toBe(200);
  });
});

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'global-credentials-'));

async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['tsx', 'scripts/admin.ts', ...args], { env: process.env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("global configurations' credentials", () => {
  it('refuses to publish a literal credential, and never serves one stored before this change', async () => {
    const owner = await createTenant();
    const reader = await readOnlyMember(owner);
    const name = `gcred_${process.pid}_${Date.now()}`;
    const file = join(dir, `${name}.yml`);
    writeFileSync(file, withCredentials);
    const put = await admin('put-global-config', '--name', name, '--file', file);
    expect(put.code).toBe(2);
    expect(put.stderr).toContain('app.authentication.usernamePassword.scanPassword');
    expect(put.stderr).not.toContain(PASSWORD);
    expect((await api('GET', `/api/v1/global-configuration/${name}`, { token: owner.token })).status).toBe(404);

    await putObject(objectKeys.globalConfig(name), withCredentials, 'application/yaml; charset=utf-8');
    for (const who of [owner, reader]) {
      const link = await api('GET', `/api/v1/global-configuration/${name}`, { token: who.token });
      expect(link.status, link.text).toBe(409);
      expect(link.text).not.toContain(PASSWORD);
      expect(link.headers.get('location')).toBeNull();
    }

    writeFileSync(file, withCredentials.replace(PASSWORD, '${HAWK_SCAN_PASSWORD}').replace(TOKEN, '${HAWK_TOKEN}'));
    const published = await admin('put-global-config', '--name', name, '--file', file);
    expect(published.code, published.stderr).toBe(0);
    const link = await api('GET', `/api/v1/global-configuration/${name}`, {
      token: reader.token,
      query: { redirect: false },
    });
    expect(link.status, link.text).toBe(200);
    expect((await download(link.body.presignedDownloadUrl)).bytes.toString()).toContain('${HAWK_SCAN_PASSWORD}');
  });
});

const envConfig = (password: string, token = 'token-0815') => ({
  app: {
    host: 'https://staging.example.test',
    authentication: {
      usernamePassword: { type: 'FORM', loginPath: '/login', scanUsername: 'alice', scanPassword: password },
      external: { type: 'TOKEN', value: token },
      tokenAuthorization: { type: 'HEADER', value: 'Authorization', tokenType: 'Bearer' },
    },
  },
});

describe('literal credentials saved under a name another configuration of the owner uses', () => {
  it("never replace that configuration's secret: a secret holding the same value is reused, another value takes a free name", async () => {
    const owner = await createTenant();
    const appId = await createApp(owner, { name: 'two-envs', env: 'dev' });
    await api('POST', `/api/v1/app/${appId}/env`, { token: owner.token, body: { env: 'stage' } });
    await api('POST', `/api/v1/app/${appId}/env`, { token: owner.token, body: { env: 'prod' } });
    const envs = await api('GET', `/api/v1/app/${appId}/env/list`, { token: owner.token });
    const envId = (name: string) =>
      envs.body.environments.find((env: { environmentName: string }) => env.environmentName === name).environmentId;
    const save = (env: string, conf: object) =>
      api('POST', `/api/v1/app/${appId}/env/${envId(env)}/config/default`, { token: owner.token, body: { conf } });

    const dev = await save('dev', envConfig('pw-of-dev'));
    expect(dev.status, dev.text).toBe(200);
    expect(dev.body.movedSecrets).toEqual(['USERNAME_PASSWORD_SCAN_PASSWORD', 'EXTERNAL_VALUE']);
    const stage = await save('stage', envConfig('pw-of-stage'));
    expect(stage.status, stage.text).toBe(200);
    expect(stage.body.movedSecrets).toEqual(['USERNAME_PASSWORD_SCAN_PASSWORD_2', 'EXTERNAL_VALUE']);
    const prod = await save('prod', envConfig('pw-of-stage', 'token-of-prod'));
    expect(prod.body.movedSecrets).toEqual(['USERNAME_PASSWORD_SCAN_PASSWORD_2', 'EXTERNAL_VALUE_2']);

    const read = (env: string) =>
      api('GET', `/api/v1/app/${appId}/env/${envId(env)}/config/default`, { token: owner.token });
    expect((await read('dev')).body.conf.app.authentication.usernamePassword.scanPassword).toBe(
      '${USERNAME_PASSWORD_SCAN_PASSWORD}',
    );
    expect((await read('stage')).body.conf.app.authentication.usernamePassword.scanPassword).toBe(
      '${USERNAME_PASSWORD_SCAN_PASSWORD_2}',
    );
    expect((await read('prod')).body.conf.app.authentication.external.value).toBe('${EXTERNAL_VALUE_2}');
    expect(
      await resolveScanSecrets(appId, owner.orgId, [
        'USERNAME_PASSWORD_SCAN_PASSWORD',
        'USERNAME_PASSWORD_SCAN_PASSWORD_2',
        'EXTERNAL_VALUE',
        'EXTERNAL_VALUE_2',
      ]),
    ).toEqual({
      USERNAME_PASSWORD_SCAN_PASSWORD: 'pw-of-dev',
      USERNAME_PASSWORD_SCAN_PASSWORD_2: 'pw-of-stage',
      EXTERNAL_VALUE: 'token-0815',
      EXTERNAL_VALUE_2: 'token-of-prod',
    });
  });

  it("an organization's configurations the same way", async () => {
    const owner = await createTenant();
    const save = (name: string, password: string) =>
      api('POST', `/api/v1/configuration/${owner.orgId}/update`, {
        token: owner.token,
        body: { name, conf: withCredentials.replace(PASSWORD, password) },
      });
    expect((await save('first', 'pw-first')).body.movedSecrets).toEqual([
      'USERNAME_PASSWORD_SCAN_PASSWORD',
      'HAWK_CONFIG_0_VAL',
    ]);
    const second = await save('second', 'pw-second');
    expect(second.status, second.text).toBe(200);
    expect(second.body.movedSecrets).toEqual(['USERNAME_PASSWORD_SCAN_PASSWORD_2', 'HAWK_CONFIG_0_VAL']);
    const link = await api('GET', `/api/v1/configuration/${owner.orgId}/second`, { token: owner.token });
    const text = (await download(link.body.presignedDownloadUrl)).bytes.toString();
    expect(text).toContain('scanPassword: ${USERNAME_PASSWORD_SCAN_PASSWORD_2}');
    const orgSecrets = await heldScanSecrets({ orgId: owner.orgId });
    expect(orgSecrets.get('USERNAME_PASSWORD_SCAN_PASSWORD')?.value).toBe('pw-first');
    expect(orgSecrets.get('USERNAME_PASSWORD_SCAN_PASSWORD_2')?.value).toBe('pw-second');
  });
});

describe('a credential mixing literal text with a reference', () => {
  const MIXED = 'Bearer abc-literal-771${X}';

  it('is refused when an organization configuration is saved, and one stored before is never downloaded', async () => {
    const owner = await createTenant();
    const reader = await readOnlyMember(owner);
    const conf = withCredentials.replace(PASSWORD, '${P}').replace(`Bearer ${TOKEN}`, MIXED);
    const saved = await api('POST', `/api/v1/configuration/${owner.orgId}/update`, {
      token: owner.token,
      body: { name: 'mixed', conf },
    });
    expect(saved.status, saved.text).toBe(400);
    expect(saved.body.message).toContain('hawk.config.0.val: a credential mixes literal text with a ${NAME} reference');
    expect(saved.text).not.toContain('abc-literal-771');
    expect((await api('GET', `/api/v1/configuration/${owner.orgId}/mixed`, { token: owner.token })).status).toBe(404);

    await legacyOrganizationConfiguration(owner.orgId, 'legacy-mixed', conf);
    for (const who of [owner, reader]) {
      const link = await api('GET', `/api/v1/configuration/${owner.orgId}/legacy-mixed`, { token: who.token });
      expect(link.status, link.text).toBe(409);
      expect(link.body.message).toContain('hawk.config.0.val');
      expect(link.text).not.toContain('abc-literal-771');
    }
  });

  it("is refused in an environment's default configuration, and an application configuration read never shows it", async () => {
    const owner = await createTenant();
    const reader = await readOnlyMember(owner);
    const appId = await createApp(owner, { name: 'mixed', env: 'dev' });
    const envs = await api('GET', `/api/v1/app/${appId}/env/list`, { token: owner.token });
    const path = `/api/v1/app/${appId}/env/${envs.body.environments[0].environmentId}/config/default`;
    const before = await api('GET', path, { token: owner.token });
    const saved = await api('POST', path, { token: owner.token, body: { conf: envConfig('${P}', MIXED) } });
    expect(saved.status, saved.text).toBe(400);
    expect(saved.body.message).toContain('app.authentication.external.value: a credential mixes literal text');
    expect((await api('GET', path, { token: owner.token })).body.configHash).toBe(before.body.configHash);

    const defaulted = await api('POST', path, { token: owner.token, body: { conf: envConfig('${P:pw-default-9}') } });
    expect(defaulted.status, defaulted.text).toBe(400);
    expect(defaulted.body.message).toContain('app.authentication.usernamePassword.scanPassword');

    // A scanner outside the service reports the configuration it scanned with as it was: reads redact it.
    const config = `app:\n  env: dev\n  host: https://target.test\n  authentication:\n    external:\n      type: TOKEN\n      value: "${MIXED}"\n`;
    const { configHash } = await startScan(owner.token, appId, { config });
    for (const who of [owner, reader]) {
      const read = await api('GET', `/api/v1/app/${appId}/config/${configHash}`, { token: who.token });
      expect(read.status, read.text).toBe(200);
      expect(read.text).not.toContain('abc-literal-771');
    }
  });
});
