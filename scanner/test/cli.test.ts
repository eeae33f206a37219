import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS_ENV, formAppConfig, jsonApiConfig, writeConfig } from './configs.ts';
import { PASSWORD, startFormApp, startJsonApi } from './target-apps.ts';

type Run = { code: number; stdout: string; stderr: string };

// The installed command itself (bin/hawk-scanner.mjs), as a CI job would run it.
const BIN = fileURLToPath(new URL('../bin/hawk-scanner.mjs', import.meta.url));

// Asynchronous on purpose: the target apps answer the CLI from this process's event loop.
function cli(args: string[], env: NodeJS.ProcessEnv = CREDENTIALS_ENV): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr }),
    );
  });
}

let formApp: Awaited<ReturnType<typeof startFormApp>>;
let jsonApi: Awaited<ReturnType<typeof startJsonApi>>;
beforeAll(async () => {
  [formApp, jsonApi] = await Promise.all([startFormApp(), startJsonApi({ tokenUses: 5 })]);
});
afterAll(() => Promise.all([formApp.close(), jsonApi.close()]));

describe('hawk-scanner validate', () => {
  it('exits 0 and prints each step and the verdict when the login works (files merged)', async () => {
    const { app } = formAppConfig(formApp.url);
    const base = writeConfig({ app: { applicationId: app.applicationId, env: app.env, host: 'http://wrong.invalid' } });
    const auth = writeConfig({
      app: { host: app.host, antiCsrfParam: app.antiCsrfParam, authentication: app.authentication },
    });

    const run = await cli(['validate', base, auth]);

    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      `ok   login page: GET ${formApp.url}/login -> 200: anti-forgery field authenticity_token read`,
      `ok   login: POST ${formApp.url}/login (FORM) -> 302: cookies for ${formApp.url}: pre_sid, SESSIONID`,
      `ok   testPath: GET ${formApp.url}/dashboard -> 200: success /HTTP/1\\.1 200/ matched "HTTP/1.1 200"`,
      'Verdict: authenticated',
      '',
    ]);
    expect(run.stdout + run.stderr).not.toContain(PASSWORD);
  });

  it('prints machine-readable steps with --json', async () => {
    const run = await cli(['validate', '--json', writeConfig(jsonApiConfig(jsonApi.url))]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      verdict: 'authenticated',
      steps: [
        {
          name: 'login',
          request: `POST ${jsonApi.url}/api/login (JSON)`,
          status: 200,
          ok: true,
          detail: 'token read from JSON path data.auth.token',
        },
        {
          name: 'testPath',
          request: `GET ${jsonApi.url}/api/me`,
          status: 200,
          ok: true,
          detail: 'success /"email"/ matched "\\"email\\""',
        },
      ],
    });
  });

  it('exits 1 when testPath fails', async () => {
    const run = await cli([
      'validate',
      '--json',
      writeConfig(formAppConfig(formApp.url, { path: '/admin', fail: 'HTTP/1\\.1 403' })),
    ]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      verdict: 'failed',
      reason: 'testPath: fail /HTTP/1\\.1 403/ matched "HTTP/1.1 403"',
    });
  });

  it('exits 1 on wrong credentials without printing the password', async () => {
    const wrongPassword = 'Wr0ng-but-secret!';
    const env = { ...CREDENTIALS_ENV, SCAN_PASSWORD: wrongPassword };
    const [text, json] = await Promise.all([
      cli(['validate', writeConfig(jsonApiConfig(jsonApi.url))], env),
      cli(['validate', '--json', writeConfig(jsonApiConfig(jsonApi.url))], env),
    ]);
    expect([text.code, json.code]).toEqual([1, 1]);
    expect(text.stdout).toContain(
      `Verdict: authentication failed: login failed: ${jsonApi.url}/api/login answered 401 Unauthorized`,
    );
    expect(JSON.parse(json.stdout)).toMatchObject({
      verdict: 'failed',
      steps: [{ name: 'login', status: 401, ok: false }],
    });
    for (const output of [text.stdout, text.stderr, json.stdout, json.stderr])
      expect(output).not.toContain(wrongPassword);
  });

  it('logs in every other user of hawk.authorization too, and names the one that fails', async () => {
    const document = jsonApiConfig(jsonApi.url);
    const user = (name: string, password: string) => ({
      name,
      authentication: {
        ...document.app.authentication,
        usernamePassword: { ...document.app.authentication.usernamePassword, scanPassword: password },
      },
    });
    const wrongPassword = 'Wr0ng-but-secret!';
    const [both, failing] = await Promise.all([
      cli(['validate', writeConfig({ ...document, hawk: { authorization: { users: [user('bob', PASSWORD)] } } })]),
      cli([
        'validate',
        writeConfig({
          ...document,
          hawk: { authorization: { users: [user('bob', PASSWORD), user('mallory', wrongPassword)] } },
        }),
      ]),
    ]);
    expect(both.code).toBe(0);
    expect(both.stdout).toContain(`ok   bob: login: POST ${jsonApi.url}/api/login (JSON) -> 200`);
    expect(both.stdout).toContain('ok   bob: testPath:');
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain(`FAIL mallory: login: POST ${jsonApi.url}/api/login (JSON) -> 401`);
    expect(failing.stdout).toContain(
      `Verdict: authentication failed: user mallory: login failed: ${jsonApi.url}/api/login answered 401 Unauthorized`,
    );
    expect(failing.stdout + failing.stderr).not.toContain(wrongPassword);
  });

  it('exits 2 with every config error, by path, on an invalid config', async () => {
    const document = formAppConfig(formApp.url) as { app: { authentication: Record<string, unknown> } };
    delete document.app.authentication.cookieAuthorization;
    const [text, json] = await Promise.all([
      cli(['validate', writeConfig(document)], { SCAN_USERNAME: 'alice' }),
      cli(['validate', '--json', writeConfig(document)], { SCAN_USERNAME: 'alice' }),
    ]);
    expect([text.code, json.code]).toEqual([2, 2]);
    expect(text.stdout.split('\n').slice(0, 3)).toEqual([
      'Invalid config (2 errors):',
      expect.stringMatching(
        /^ {2}app\.authentication\.usernamePassword\.scanPassword: environment variable SCAN_PASSWORD is not set/,
      ),
      expect.stringMatching(/^ {2}app\.authentication: no cookieAuthorization or tokenAuthorization/),
    ]);
    expect(JSON.parse(json.stdout)).toEqual({
      verdict: 'invalid-config',
      errors: [
        { path: 'app.authentication.usernamePassword.scanPassword', message: expect.stringContaining('SCAN_PASSWORD') },
        { path: 'app.authentication', message: expect.stringContaining('the scan would run unauthenticated') },
      ],
    });
  });

  it('exits 2 with a usage message on bad usage', async () => {
    for (const args of [[], ['validate'], ['check', 'a.yml'], ['validate', '--watch', 'a.yml']]) {
      const run = await cli(args);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('validate [--json] <config.yml...>');
    }
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: hawk-scanner <command>/);
  });

  // issue 43 item 16: `import --help` printed "--help needs a value" and exited 2.
  it('prints the usage of every command for --help, wherever it is, and exits 0', async () => {
    const commands = ['validate', 'import', 'sarif', 'agent', 'profile'];
    const runs = await Promise.all([
      ...commands.map((command) => cli([command, '--help'])),
      cli(['import', '--app', '7d1f2c8e-0b7a-4c55-9a51-0d9d6f7e2a10', '-h']),
    ]);
    runs.forEach((run, i) => {
      expect([run.code, run.stderr]).toEqual([0, '']);
      expect(run.stdout).toMatch(new RegExp(`^usage: hawk-scanner ${commands[i] ?? 'import'} `));
    });
  });

  it('refuses agent labels that are not key=value pairs, naming the one', async () => {
    const run = await cli(['agent', '--org', '7d1f2c8e-0b7a-4c55-9a51-0d9d6f7e2a10', '--labels', 'net=internal,eu'], {
      HAWK_API_URL: 'http://127.0.0.1:9',
      HAWK_API_KEY: 'unused',
    });
    expect(run.stderr).toContain('hawk-scanner agent: --labels takes key=value pairs separated by commas, got "eu"');
    expect(run.stderr).toContain('[--labels <key=value,key=value>]');
  });

  // issue 43 item 2: the agent never passes the service's own credentials to scan configurations.
  it("refuses to start an agent told to pass one of the service's credentials", async () => {
    const run = await cli(
      ['agent', '--org', '7d1f2c8e-0b7a-4c55-9a51-0d9d6f7e2a10', '--allow-vars', 'TARGET_PASSWORD,SIGNING_KEY_FILE'],
      { HAWK_API_URL: 'http://127.0.0.1:9', HAWK_API_KEY: 'unused' },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "hawk-scanner agent: --allow-vars or HAWK_SCAN_ALLOWED_VARS: SIGNING_KEY_FILE is one of the service's own credentials",
    );
  });
});
