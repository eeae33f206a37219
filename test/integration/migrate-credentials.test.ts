import { OWN_TABLE } from './own-table.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { api, useServer } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { download } from './hosted-assets-helpers.ts';
import { legacyOrganizationConfiguration } from './legacy-configurations.ts';
import { startLocalServer } from '../../scripts/local/server.ts';
import { addMissingIndexes, createTableInput } from '../../scripts/local/provision.ts';
import { freePort } from '../../scripts/local/ports.ts';
import { permissionsOfRole } from '../../shared/context/roles.ts';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { config } from '../../shared/config.ts';
import { mainTable } from '../../shared/db/tables.ts';
import { objectKeys } from '../../shared/storage/objects.ts';
import { putObject } from '../../shared/storage/objects-io.ts';
import { resolveScanSecrets } from '../../shared/scans/secret-store.ts';

// Stored configurations written before literal credentials moved into scan secrets (docs/HOSTED-SCANS.md, "Scan
// configurations and their credentials") are moved by the data-directory upgrade (npm start) and npm run migrate:
// environments' default configurations and hosted runs into the application's secrets, organization scan
// configurations into the organization's. This file has a main table of its own (own-table.ts): the migration reads
// the whole table.

const root = new URL('../../', import.meta.url).pathname;
const client = new DynamoDBClient({
  region: config.region,
  endpoint: config.dynamodbEndpoint,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

let server: Server;
beforeAll(async () => {
  await client.send(new CreateTableCommand(createTableInput(mainTable, OWN_TABLE)));
  const port = await freePort();
  server = await startLocalServer(port);
  useServer(`http://127.0.0.1:${port}`);
}, 120_000);
afterAll(async () => {
  server?.close();
  await client.send(new DeleteTableCommand({ TableName: OWN_TABLE })).catch(() => undefined);
  client.destroy();
});

const login = (password: string) => ({
  usernamePassword: {
    type: 'FORM',
    loginPath: '/login',
    usernameField: 'user',
    passwordField: 'pass',
    scanUsername: 'alice',
    scanPassword: password,
  },
});

interface Seeded {
  owner: Tenant;
  reader: Tenant;
  appId: string;
  envIds: [string, string];
  passwords: [string, string];
  orgPassword: string;
}

/** A data set as the versions before wrote it: two environments and a run of one application, an organization configuration, each with its literal password. */
async function seedOldData(): Promise<Seeded> {
  const owner = await createTenant();
  const reader = { orgId: owner.orgId, ...(await addUserTo(owner.orgId, permissionsOfRole('READ_ONLY'))) };
  const created = await api('POST', `/api/v1/org/${owner.orgId}/app`, {
    token: owner.token,
    body: { name: 'Old', env: 'dev' },
  });
  expect(created.status, created.text).toBe(200);
  const appId = created.body.applicationId as string;
  await api('POST', `/api/v1/app/${appId}/env`, { token: owner.token, body: { env: 'stage' } });
  const envs = await api('GET', `/api/v1/app/${appId}/env/list`, { token: owner.token });
  const byName = Object.fromEntries(
    envs.body.environments.map((e: { environmentName: string; environmentId: string }) => [
      e.environmentName,
      e.environmentId,
    ]),
  );
  const envIds: [string, string] = [byName.dev, byName.stage];
  const passwords: [string, string] = [`dev-pass-${randomUUID()}`, `stage-pass-${randomUUID()}`];
  // The configuration written when the environment was created, as an earlier save stored it: credentials in it.
  for (const [i, envId] of envIds.entries())
    await putObject(
      objectKeys.environmentConfig(appId, envId),
      `${JSON.stringify({ app: { applicationId: appId, env: i ? 'stage' : 'dev', host: 'https://old.example.test', authentication: login(passwords[i]) } }, null, 2)}\n`,
      'application/json',
    );
  const now = Date.now();
  await db.send(
    new PutCommand({
      TableName: config.tableName,
      Item: {
        ...keys.perchRun(appId),
        entity: 'perchRun',
        applicationId: appId,
        organizationId: owner.orgId,
        scanKey: randomUUID(),
        state: 'COMPLETED',
        phase: 'completed',
        envName: 'dev',
        config: `app:\n  env: dev\n  host: https://old.example.test\n  authentication:\n    usernamePassword:\n      type: FORM\n      scanUsername: alice\n      scanPassword: ${passwords[0]} # the dev login\n`,
        targetUrl: 'https://old.example.test',
        allowPrivate: false,
        userId: owner.userId,
        errors: [],
        createdAt: now,
        updatedAt: now,
        endedAt: now,
        deadlineAt: now,
      },
    }),
  );
  const orgPassword = `org-pass-${randomUUID()}`;
  await legacyOrganizationConfiguration(
    owner.orgId,
    'legacy-login',
    `# kept\napp:\n  env: dev\n  host: https://old.example.test\n  authentication:\n    usernamePassword:\n      type: FORM\n      scanPassword: ${orgPassword}\n`,
  );
  return { owner, reader, appId, envIds, passwords, orgPassword };
}

/** Every configuration's credentials moved: out of every read, into secrets that resolve to the values they held. */
async function expectMoved(seeded: Seeded): Promise<void> {
  const { owner, reader, appId, envIds, passwords, orgPassword } = seeded;
  const references: string[] = [];
  for (const [i, envId] of envIds.entries()) {
    for (const who of [owner, reader]) {
      const read = await api('GET', `/api/v1/app/${appId}/env/${envId}/config/default`, { token: who.token });
      expect(read.status, read.text).toBe(200);
      expect(read.text).not.toContain(passwords[i]);
      expect(read.body.conf.app.authentication.usernamePassword.scanPassword).toMatch(
        /^\$\{USERNAME_PASSWORD_SCAN_PASSWORD(_2)?\}$/,
      );
    }
    const read = await api('GET', `/api/v1/app/${appId}/env/${envId}/config/default`, { token: owner.token });
    references.push(/\$\{(\w+)\}/.exec(read.body.conf.app.authentication.usernamePassword.scanPassword)![1]);
  }
  // Two environments, two passwords under the same path: two secrets, neither replacing the other.
  expect(new Set(references).size).toBe(2);
  const resolved = await resolveScanSecrets(appId, owner.orgId, references);
  expect(references.map((name) => resolved[name])).toEqual(passwords);

  // The run's configuration reuses the secret holding its value; its comment stays.
  const run = (await db.send(new GetCommand({ TableName: config.tableName, Key: keys.perchRun(appId) }))).Item!;
  expect(run.config).not.toContain(passwords[0]);
  expect(run.config).toContain(`scanPassword: \${${references[0]}} # the dev login`);

  for (const who of [owner, reader]) {
    const link = await api('GET', `/api/v1/configuration/${owner.orgId}/legacy-login`, { token: who.token });
    expect(link.status, link.text).toBe(200);
    const text = (await download(link.body.presignedDownloadUrl)).bytes.toString();
    expect(text).not.toContain(orgPassword);
    expect(text).toContain('# kept');
    expect(text).toContain('scanPassword: ${USERNAME_PASSWORD_SCAN_PASSWORD}');
  }
  const orgSecrets = await resolveScanSecrets(randomUUID(), owner.orgId, ['USERNAME_PASSWORD_SCAN_PASSWORD']);
  expect(orgSecrets).toEqual({ USERNAME_PASSWORD_SCAN_PASSWORD: orgPassword });
}

const marker = () =>
  db.send(new GetCommand({ TableName: OWN_TABLE, Key: keys.tableCredentialsMoved(), ConsistentRead: true }));

describe("the migration of stored configurations' credentials", () => {
  it('the data-directory upgrade (npm start) moves them once, and marks the table', async () => {
    const seeded = await seedOldData();
    // Before: served with the password (the default configuration redacted, the organization's refused).
    const before = await api('GET', `/api/v1/configuration/${seeded.owner.orgId}/legacy-login`, {
      token: seeded.owner.token,
    });
    expect(before.status).toBe(409);
    const lines: string[] = [];
    await addMissingIndexes(client, mainTable, OWN_TABLE, (line) => lines.push(line));
    expect(lines[0]).toContain("moving its stored configurations' credentials into scan secrets");
    await expectMoved(seeded);
    expect((await marker()).Item).toBeDefined();
    lines.length = 0;
    await addMissingIndexes(client, mainTable, OWN_TABLE, (line) => lines.push(line));
    expect(lines).toEqual([]);
  });

  it('npm run migrate moves them, says how many, and changes nothing when run again', async () => {
    const seeded = await seedOldData();
    await db.send(new DeleteCommand({ TableName: OWN_TABLE, Key: keys.tableCredentialsMoved() }));
    const tmp = mkdtempSync(join(tmpdir(), 'hawk-migrate-credentials-'));
    const run = () =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', 'scripts/migrate.ts', '--table', OWN_TABLE, '--segments', '2'],
          { cwd: root, env: { ...process.env, TMPDIR: tmp } },
        );
        let [stdout, stderr] = ['', ''];
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.once('error', reject);
        child.once('exit', (status) => resolve({ status, stdout, stderr }));
      });
    const out = await run();
    expect(out.status, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).steppedByEntity).toMatchObject({ environment: 2, organizationAsset: 1, perchRun: 1 });
    expect(out.stderr).toContain("4 stored configurations' literal credentials moved into scan secrets");
    for (const secret of [...seeded.passwords, seeded.orgPassword])
      expect(out.stdout + out.stderr).not.toContain(secret);
    await expectMoved(seeded);
    expect((await marker()).Item).toBeDefined();
    const again = await run();
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).steppedByEntity).toMatchObject({
      environment: 0,
      organizationAsset: 0,
      perchRun: 0,
    });
    rmSync(tmp, { recursive: true, force: true });
  });
});
