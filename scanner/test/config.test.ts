import { describe, expect, it } from 'vitest';
import { agentVariables, loadConfig, loadConfigText } from '../src/auth/index.ts';
import { CREDENTIALS_ENV, formAppConfig, jsonApiConfig, load, writeConfig } from './configs.ts';
import { PASSWORD } from './target-apps.ts';

const HOST = 'http://127.0.0.1:8080';

function errorsOf(documents: (object | string)[], env: NodeJS.ProcessEnv = CREDENTIALS_ENV) {
  const loaded = loadConfig(documents.map(writeConfig), env);
  expect(loaded.config).toBeUndefined();
  return loaded.errors!;
}

/** The form-app config with `change` applied to app.authentication. */
function formWith(change: (authentication: Record<string, any>, app: Record<string, any>) => void) {
  const document = formAppConfig(HOST) as { app: Record<string, any> };
  change(document.app.authentication, document.app);
  return document;
}

describe('loading', () => {
  it('substitutes ${VAR} and ${VAR:default} and merges files in order, later wins', () => {
    const base = formAppConfig(HOST);
    const override = {
      app: {
        host: '${TARGET:http://localhost:3000}',
        authentication: {
          usernamePassword: { loginPath: '${LOGIN_PATH:/session}' },
          cookieAuthorization: { cookieNames: ['_app_session'] },
        },
      },
    };
    const config = load([base, override], { ...CREDENTIALS_ENV, LOGIN_PATH: '/users/sign_in' });
    expect(config.app.host).toBe('http://localhost:3000');
    expect(config.app.authentication.usernamePassword).toMatchObject({
      loginPath: '/users/sign_in',
      loginPagePath: '/login',
      scanPassword: PASSWORD,
    });
    expect(config.app.authentication.cookieAuthorization).toEqual({ cookieNames: ['_app_session'] });
  });

  it('keeps YAML structure intact when a substituted password holds YAML syntax', () => {
    const config = load([formAppConfig(HOST)], { ...CREDENTIALS_ENV, SCAN_PASSWORD: 'a: b # c' });
    expect(config.app.authentication.usernamePassword?.scanPassword).toBe('a: b # c');
  });

  it('names the field and the variable when an environment variable is unset', () => {
    expect(errorsOf([formAppConfig(HOST)], { SCAN_USERNAME: 'alice' })).toEqual([
      {
        path: 'app.authentication.usernamePassword.scanPassword',
        message: expect.stringMatching(
          /^environment variable SCAN_PASSWORD is not set; export it before running \(keep secrets out of the file\) \(referenced in .*config-\d+\.yml\)$/,
        ),
      },
    ]);
  });

  // issue 43 item 2: a hosted scan's configuration, written by any SCANNER member, read the agent's whole environment
  // (for the embedded agent, the server's).
  describe("a hosted scan's configuration reads only the variables the agent passes", () => {
    const SERVER_ENV = {
      HAWK_SCAN_PASSWORD: 'scan-secret',
      HAWK_SCAN_USER: 'alice',
      LOCAL_S3_SECRET_ACCESS_KEY: 's3-secret-value',
      SIGNING_KEY_FILE: '/data/signing.key',
      AWS_SECRET_ACCESS_KEY: 'aws-secret-value',
      HOME: '/home/server',
      TARGET_PASSWORD: 'named-secret',
    };
    const hosted = (login: string, password: string, allowed: string[] = []) =>
      loadConfigText(
        `app:\n  authentication:\n    usernamePassword: {type: FORM, loginPath: /login, usernameField: u, passwordField: p, scanUsername: "${login}", scanPassword: "${password}"}\n    cookieAuthorization: {cookieNames: [sid]}\n`,
        { app: { host: HOST, applicationId: '7d1f2c8e-0b7a-4c55-9a51-0d9d6f7e2a10', env: 'dev' } },
        agentVariables(allowed, SERVER_ENV),
      );

    it('substitutes HAWK_SCAN_* variables and those the operator names', () => {
      const loaded = hosted('${HAWK_SCAN_USER}', '${TARGET_PASSWORD}', ['TARGET_PASSWORD']);
      expect(loaded.errors).toBeUndefined();
      expect(loaded.config!.app.authentication.usernamePassword).toMatchObject({
        scanUsername: 'alice',
        scanPassword: 'named-secret',
      });
      expect(
        hosted('${HAWK_SCAN_MISSING:bob}', '${HAWK_SCAN_PASSWORD}').config?.app.authentication.usernamePassword,
      ).toMatchObject({ scanUsername: 'bob', scanPassword: 'scan-secret' });
    });

    it('refuses any other variable, defaults included, naming it and how to allow it, never its value', () => {
      const loaded = hosted('${HOME}', '${TARGET_PASSWORD:fallback}');
      expect(loaded.errors).toEqual([
        {
          path: 'app.authentication.usernamePassword.scanUsername',
          message:
            'HOME is not passed to scan configurations: the agent passes only HAWK_SCAN_* variables and those its ' +
            'operator names (HAWK_SCAN_ALLOWED_VARS=NAME1,NAME2 or hawk-scanner agent --allow-vars NAME1,NAME2); ' +
            'name it HAWK_SCAN_HOME where the agent runs (referenced in the scan configuration)',
        },
        {
          path: 'app.authentication.usernamePassword.scanPassword',
          message: expect.stringMatching(
            /^TARGET_PASSWORD is not passed to scan configurations: .*HAWK_SCAN_ALLOWED_VARS/,
          ),
        },
      ]);
    });

    it("refuses the service's own credentials even when the operator names them", () => {
      for (const name of ['LOCAL_S3_SECRET_ACCESS_KEY', 'SIGNING_KEY_FILE', 'AWS_SECRET_ACCESS_KEY']) {
        const loaded = hosted('alice', `\${${name}}`, [name]);
        expect(loaded.errors).toEqual([
          {
            path: 'app.authentication.usernamePassword.scanPassword',
            message: `${name} is one of the service's own credentials and is never passed to scan configurations; use a HAWK_SCAN_* variable instead (referenced in the scan configuration)`,
          },
        ]);
        expect(JSON.stringify(loaded.errors)).not.toMatch(/s3-secret-value|signing\.key|aws-secret-value/);
      }
    });

    it('says where to set an allowed variable that is not set', () => {
      expect(hosted('alice', '${HAWK_SCAN_NOT_SET}').errors).toEqual([
        {
          path: 'app.authentication.usernamePassword.scanPassword',
          message:
            "environment variable HAWK_SCAN_NOT_SET is not set where the agent runs; set it in the agent's environment (referenced in the scan configuration)",
        },
      ]);
    });
  });

  it('reports unreadable files and invalid YAML by file name', () => {
    const broken = writeConfig(`app:\n  host: [unclosed\n  scanPassword: ${PASSWORD}\n`);
    const errors = loadConfig(['/nonexistent/stackhawk.yml', broken], CREDENTIALS_ENV).errors!;
    expect(errors).toEqual([
      { path: '/nonexistent/stackhawk.yml', message: 'cannot read the file (ENOENT); check the path' },
      { path: broken, message: expect.stringMatching(/^invalid YAML: /) },
    ]);
    expect(JSON.stringify(errors)).not.toContain(PASSWORD);
  });
});

describe('validation errors name the path and what to do', () => {
  const cases: [string, object | string, ...{ path: string; message: string }[]][] = [
    [
      'a missing root key',
      'application:\n  host: x\n',
      { path: 'app', message: 'required: the application settings' },
      {
        path: 'application',
        message: 'unknown key; remove it or fix its spelling (allowed here: app, hawk, hawkAddOn, tags)',
      },
    ],
    [
      'a misspelt key',
      formWith((auth) => {
        auth.usernamePassword.loginpath = auth.usernamePassword.loginPath;
        delete auth.usernamePassword.loginPath;
      }),
      {
        path: 'app.authentication.usernamePassword.loginPath',
        message: 'required: the path or full URL the credentials are POSTed to, e.g. /login',
      },
      { path: 'app.authentication.usernamePassword.loginpath', message: 'unknown key; did you mean loginPath?' },
    ],
    [
      'a missing required field',
      formWith((auth) => delete auth.usernamePassword.loginPath),
      {
        path: 'app.authentication.usernamePassword.loginPath',
        message: 'required: the path or full URL the credentials are POSTed to, e.g. /login',
      },
    ],
    [
      'a wrong type',
      formWith((auth) => (auth.cookieAuthorization.cookieNames = 'SESSIONID')),
      {
        path: 'app.authentication.cookieAuthorization.cookieNames',
        message: 'must be a list of cookie names: the session cookie names',
      },
    ],
    [
      'an unknown login type',
      formWith((auth) => (auth.usernamePassword.type = 'BASIC')),
      {
        path: 'app.authentication.usernamePassword.type',
        message: 'must be one of FORM, JSON: FORM (form-encoded body) or JSON (JSON body)',
      },
    ],
    [
      'a non-string otherParams value',
      formWith((auth) => (auth.usernamePassword.otherParams = [{ name: 'remember', val: 1 }])),
      {
        path: 'app.authentication.usernamePassword.otherParams[0].val',
        message: 'must be a string (quote it in YAML): the extra field value',
      },
    ],
    [
      'an invalid regex',
      formWith((auth) => (auth.loggedOutIndicator = 'HTTP/1.1 (401')),
      {
        path: 'app.authentication.loggedOutIndicator',
        message: expect.stringContaining('is not a valid regular expression'),
      },
    ],
    [
      'a host that is not a URL',
      formWith((_, app) => (app.host = 'localhost:3000')),
      { path: 'app.host', message: 'must be an http(s) URL: the target base URL, e.g. http://localhost:3000' },
    ],
    [
      'a login path without a leading slash',
      formWith((auth) => (auth.usernamePassword.loginPath = 'login')),
      {
        path: 'app.authentication.usernamePassword.loginPath',
        message: expect.stringContaining('must start with / (a path on app.host) or be a full http(s) URL'),
      },
    ],
    [
      'JSON login without tokenExtraction',
      (() => {
        const document = jsonApiConfig(HOST) as { app: { authentication: Record<string, unknown> } };
        delete document.app.authentication.tokenExtraction;
        return document;
      })(),
      {
        path: 'app.authentication.tokenExtraction',
        message: expect.stringContaining('required with usernamePassword.type JSON'),
      },
    ],
    [
      'no authorization block, which would scan unauthenticated',
      formWith((auth) => delete auth.cookieAuthorization),
      { path: 'app.authentication', message: expect.stringContaining('the scan would run unauthenticated') },
    ],
    [
      'both authorization blocks',
      formWith((auth) => {
        auth.tokenAuthorization = { type: 'HEADER', value: 'Authorization' };
        auth.tokenExtraction = { type: 'HEADER', value: 'X-Auth-Token' };
      }),
      {
        path: 'app.authentication.tokenAuthorization',
        message: 'use either cookieAuthorization or tokenAuthorization, not both',
      },
    ],
    [
      'no credential source',
      formWith((auth) => delete auth.usernamePassword),
      { path: 'app.authentication', message: expect.stringContaining('no credential source') },
    ],
    [
      'an external token with several cookie names',
      formWith((auth) => {
        delete auth.usernamePassword;
        auth.external = { type: 'TOKEN', value: 'abc' };
        auth.cookieAuthorization.cookieNames = ['a', 'b'];
      }),
      {
        path: 'app.authentication.cookieAuthorization.cookieNames',
        message: expect.stringContaining('list exactly one cookie name'),
      },
    ],
    [
      'a testPath with neither success nor fail',
      formWith((auth) => (auth.testPath = { path: '/dashboard' })),
      { path: 'app.authentication.testPath', message: expect.stringContaining('add success') },
    ],
    [
      'a testPath body on a GET',
      formWith((auth) => (auth.testPath = { path: '/dashboard', success: '200', requestBody: '{}' })),
      { path: 'app.authentication.testPath.requestBody', message: 'a body needs requestMethod POST or PUT' },
    ],
  ];

  it.each(cases)('%s', (_, document, ...expected) => {
    expect(errorsOf([document])).toEqual(expected);
  });

  it("accepts the scanner's other settings of a real stackhawk.yml, but not an unknown app key", () => {
    const real = formWith((_, app) => {
      app.openApiConf = { path: '/openapi.json' };
      app.excludePaths = ['/logout'];
    });
    const loaded = loadConfig(
      [writeConfig({ ...real, hawk: { spider: { base: true } }, tags: [{ name: 'a', value: 'b' }] })],
      CREDENTIALS_ENV,
    );
    expect(loaded.errors).toBeUndefined();
    expect(errorsOf([formWith((_, app) => (app.antiCsrfParm = 'x'))])).toEqual([
      {
        path: 'app.antiCsrfParm',
        message: expect.stringMatching(/^unknown key; remove it or fix its spelling \(allowed here: .*antiCsrfParam/),
      },
    ]);
  });

  it('reports every schema error at once', () => {
    const errors = errorsOf([
      formWith((auth, app) => {
        delete app.applicationId;
        auth.testPath.requestMethod = 'DELETE';
      }),
    ]);
    expect(errors.map((error) => error.path)).toEqual([
      'app.applicationId',
      'app.authentication.testPath.requestMethod',
    ]);
  });

  it('never echoes a credential value', () => {
    const errors = errorsOf([
      formWith((auth) => {
        auth.usernamePassword.scanPassword = 20240229;
        auth.usernamePassword.scanUsername = ['alice'];
      }),
    ]);
    expect(errors.map((error) => error.path)).toEqual([
      'app.authentication.usernamePassword.scanUsername',
      'app.authentication.usernamePassword.scanPassword',
    ]);
    expect(JSON.stringify(errors)).not.toMatch(/20240229|alice/);
  });
});

describe('hawk.authorization (docs/SCANNER-AUTH.md, Authorization testing)', () => {
  const withUsers = (authorization: object) => ({ ...formAppConfig(HOST), hawk: { authorization } });
  const bob = () => ({ name: 'bob', authentication: structuredClone(formAppConfig(HOST).app.authentication) });

  it('takes other users with the same authentication block as app.authentication, and the options', () => {
    const config = load([
      withUsers({
        users: [bob()],
        excludePaths: ['^/logout'],
        testUnauthenticated: false,
        replayUnsafeMethods: true,
        maxRequests: 50,
      }),
    ]);
    expect(config.hawk?.authorization?.users.map((user) => user.name)).toEqual(['bob']);
    expect(config.hawk?.authorization?.users[0].authentication.usernamePassword?.scanPassword).toBe(PASSWORD);
    expect(config.hawk?.authorization).toMatchObject({ replayUnsafeMethods: true, maxRequests: 50 });
  });

  it('refuses unknown keys, unnamed or twice-named users, and a user authentication that cannot work', () => {
    const broken = bob();
    delete (broken.authentication as Record<string, unknown>).cookieAuthorization;
    const errors = errorsOf([
      withUsers({ users: [bob(), broken, { authentication: bob().authentication }], replayUnsafe: true }),
    ]);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'hawk.authorization.replayUnsafe' }),
        expect.objectContaining({ path: 'hawk.authorization.users[2].name' }),
      ]),
    );
    const combined = errorsOf([withUsers({ users: [bob(), broken] })]);
    expect(combined.map((e) => e.path)).toEqual([
      'hawk.authorization.users[1].authentication',
      'hawk.authorization.users[1].name',
    ]);
    expect(errorsOf([withUsers({ users: [] })]).map((e) => e.path)).toEqual(['hawk.authorization.users']);
  });
});
