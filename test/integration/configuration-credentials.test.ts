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
import { permissionsOfRole } from '../../shared/context/roles.ts';
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
