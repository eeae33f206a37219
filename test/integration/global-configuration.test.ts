import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { api } from './client.ts';
import { addUserTo, createTenant } from './fixtures.ts';
import { download } from './hosted-assets-helpers.ts';

// GET /api/v1/global-configuration/{configName} (docs/HOSTED-ASSETS.md, Global configuration; docs/API.md, Limits) and
// the admin CLI's put/delete-global-config.
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'global-config-'));
let counter = 0;
const uniqueName = (length = 20) => `cfg_${process.pid}_${++counter}_`.padEnd(length, 'x').slice(0, length);

/** Runs the operator CLI against the test engines; resolves with its exit code and output. */
async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['tsx', 'scripts/admin.ts', ...args], { env: process.env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function file(text: string): string {
  const path = join(dir, `${++counter}.yml`);
  writeFileSync(path, text);
  return path;
}

const config = (host: string) =>
  `app:\n  applicationId: \${APP_ID}\n  env: Global\n  host: ${host}\nhawk:\n  spider:\n    base: false\n`;
const get = (token: string, name: string, redirect?: boolean) =>
  api('GET', `/api/v1/global-configuration/${name}`, { token, query: { redirect } });

describe('global configuration', () => {
  it('publishes with the CLI, redirects by default, answers JSON with redirect=false, replaces and deletes', async () => {
    const tenant = await createTenant({ permissions: ['read:scan_config'] });
    const name = uniqueName(64);
    const put = await admin('put-global-config', '--name', name, '--file', file(config('https://one.example')));
    expect(put.code, put.stderr).toBe(0);
    expect(JSON.parse(put.stdout)).toEqual({ name, sizeBytes: Buffer.byteLength(config('https://one.example')) });

    const redirect = await get(tenant.token, name);
    expect(redirect.status).toBe(307);
    const location = redirect.headers.get('location')!;
    expect(redirect.body).toEqual({ presignedDownloadUrl: location, method: 'GET', headers: '{}' });
    expect((await download(location)).bytes.toString()).toBe(config('https://one.example'));

    expect((await admin('put-global-config', '--name', name, '--file', file(config('https://two.example')))).code).toBe(
      0,
    );
    const json = await get(tenant.token, name, false);
    expect(json.status).toBe(200);
    expect((await download(json.body.presignedDownloadUrl)).bytes.toString()).toBe(config('https://two.example'));

    const deleted = await admin('delete-global-config', '--name', name);
    expect(JSON.parse(deleted.stdout)).toEqual({ deleted: name });
    expect((await get(tenant.token, name)).status).toBe(404);
    const again = await admin('delete-global-config', '--name', name);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`global configuration ${name} not found`);
  });

  it('validates the name: 64 characters pass, 65 or other characters are 400', async () => {
    const tenant = await createTenant({ permissions: ['read:scan_config'] });
    const absent = await get(tenant.token, 'A'.repeat(64));
    expect(absent.status).toBe(404);
    expect(absent.body.message).toContain('not found');
    const long = await get(tenant.token, 'A'.repeat(65));
    expect(long.status).toBe(400);
    expect(long.body.message).toMatch(/configName: must be at most 64 characters/);
    for (const bad of ['has.dot', 'has%20space', 'semi%3Bcolon']) {
      const response = await get(tenant.token, bad);
      expect(response.status).toBe(400);
      expect(response.body.message).toContain('configName: must contain only letters, digits, _ and -');
    }
  });

  it('needs read:scan_config in some organization with API access (401 otherwise)', async () => {
    const name = uniqueName();
    expect((await admin('put-global-config', '--name', name, '--file', file(config('https://x.example')))).code).toBe(
      0,
    );
    const without = await createTenant({ permissions: ['read:application'] });
    expect((await get(without.token, name)).status).toBe(401);
    const noApiAccess = await createTenant({ permissions: ['read:scan_config'], apiAccess: false });
    expect((await get(noApiAccess.token, name)).status).toBe(401);
    const second = await addUserTo((await createTenant()).orgId, ['read:scan_config']);
    expect((await get(second.token, name)).status).toBe(307);
    expect((await api('GET', `/api/v1/global-configuration/${name}`)).status).toBe(401);
  });

  it('the CLI refuses invalid YAML, non-mappings, bad names and missing files, publishing nothing', async () => {
    const tenant = await createTenant({ permissions: ['read:scan_config'] });
    const name = uniqueName();
    const cases: [string[], RegExp][] = [
      [['--name', name, '--file', file('app: [unclosed\n')], /--file is not valid YAML: .*\(line \d+, column \d+\)/],
      [['--name', name, '--file', file('a: 1\na: 2\n')], /--file is not valid YAML: .*unique/],
      [['--name', name, '--file', file('- just\n- a list\n')], /--file must hold a YAML mapping/],
      [['--name', name, '--file', file('')], /--file must hold a YAML mapping/],
      [['--name', 'x'.repeat(65), '--file', file('app: {}\n')], /--name: must be at most 64 characters/],
      [['--name', 'bad/name', '--file', file('app: {}\n')], /--name: must contain only letters/],
      [['--name', name, '--file', join(dir, 'missing.yml')], /--file: cannot read/],
      [['--name', name], /--file is required/],
    ];
    for (const [args, message] of cases) {
      const result = await admin('put-global-config', ...args);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect((await get(tenant.token, name)).status).toBe(404);
  });
});
