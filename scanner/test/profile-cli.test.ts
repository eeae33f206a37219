import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, startFormTarget, startSpaTarget, USERNAME, type Target } from './profile-targets.ts';

// The installed command (bin/hawk-scanner.mjs): `profile` suggests a configuration that `validate` then accepts
// and logs in with, given the credentials in the environment.
const BIN = fileURLToPath(new URL('../bin/hawk-scanner.mjs', import.meta.url));
type Run = { code: number; stdout: string; stderr: string };
function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr }),
    );
  });
}

let form: Target;
let spa: Target;
beforeAll(async () => {
  [form, spa] = await Promise.all([startFormTarget(), startSpaTarget()]);
});
afterAll(() => Promise.all([form.close(), spa.close()]));

const appId = '7d1f2c8e-0b7a-4c55-9a51-0d9d6f7e2a10';
const credentials = { HAWK_SCAN_USERNAME: USERNAME, HAWK_SCAN_PASSWORD: PASSWORD };

describe('hawk-scanner profile', () => {
  for (const [kind, target] of [
    ['a server-rendered site (FORM login)', () => form],
    ['a single-page app (JSON login, bearer token)', () => spa],
  ] as const)
    it(`suggests a configuration that hawk-scanner validate logs in with: ${kind}`, async () => {
      const profiled = await cli(['profile', target().url, '--app', appId, '--allow-private', '--json']);
      expect(profiled.code, profiled.stderr).toBe(0);
      const result = JSON.parse(profiled.stdout) as { suggestedScanConfig: string };
      const file = join(mkdtempSync(join(tmpdir(), 'hawk-profile-')), 'stackhawk.yml');
      writeFileSync(file, result.suggestedScanConfig);

      const validated = await cli(['validate', file], credentials);
      expect(validated.code, validated.stdout + validated.stderr).toBe(0);
      expect(validated.stdout).toContain('Verdict: authenticated');
      const missing = await cli(['validate', file]);
      expect(missing.code).toBe(2); // the secrets are placeholders: without them the configuration is incomplete
    });

  it('prints a summary; refuses a loopback target without --allow-private; bad usage exits 2', async () => {
    const summary = await cli(['profile', form.url, '--allow-private', '--max-requests', '40']);
    expect(summary.code, summary.stderr).toBe(0);
    expect(summary.stdout).toContain('classification: APP_PUBLIC_WEBSITE');
    expect(summary.stdout).toMatch(/^login markers: .*AUTH_LOGIN_FORM \(AUTH_CONFIDENCE_HIGH\)/m);
    expect(summary.stdout).toContain('scanPassword: ${HAWK_SCAN_PASSWORD}');
    const refused = await cli(['profile', form.url]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/resolves to 127\.0\.0\.1, a loopback/);
    expect((await cli(['profile', 'ftp://x'])).code).toBe(2);
    expect((await cli(['profile', form.url, '--max-requests', '0'])).code).toBe(2);
  });
});
