// Config files for the target apps, written as YAML to a temporary directory and loaded the way the CLI does.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadConfig, type AuthConfig } from '../src/auth/index.ts';
import { PASSWORD, USERNAME } from './target-apps.ts';

export const CREDENTIALS_ENV = { SCAN_USERNAME: USERNAME, SCAN_PASSWORD: PASSWORD };

const directory = mkdtempSync(join(tmpdir(), 'scanner-auth-'));
let written = 0;

/** Writes a config file (an object, serialized as YAML, or raw YAML text) and returns its path. */
export function writeConfig(content: object | string): string {
  const file = join(directory, `config-${++written}.yml`);
  writeFileSync(file, typeof content === 'string' ? content : stringify(content));
  return file;
}

/** Loads config objects as files, in order; fails the test on config errors. */
export function load(documents: object[], env: NodeJS.ProcessEnv = CREDENTIALS_ENV): AuthConfig {
  const loaded = loadConfig(documents.map(writeConfig), env);
  if (loaded.errors) throw new Error(`unexpected config errors: ${JSON.stringify(loaded.errors)}`);
  return loaded.config;
}

const base = (host: string) => ({ applicationId: '8c7f3a52-0d4e-4b1a-9f6e-2a5b7c9d1e3f', env: 'Test', host });

export function formAppConfig(host: string, testPath: object = { path: '/dashboard', success: 'HTTP/1\\.1 200' }) {
  return {
    app: {
      ...base(host),
      antiCsrfParam: 'authenticity_token',
      authentication: {
        loggedOutIndicator: 'location: /login',
        usernamePassword: {
          type: 'FORM',
          loginPagePath: '/login',
          loginPath: '/login',
          usernameField: 'user[email]',
          passwordField: 'user[password]',
          scanUsername: '${SCAN_USERNAME}',
          scanPassword: '${SCAN_PASSWORD}',
          otherParams: [{ name: 'commit', val: 'Sign in' }],
        },
        cookieAuthorization: { cookieNames: ['SESSIONID'] },
        testPath,
      },
    },
  };
}

export function jsonApiConfig(host: string, loginPath = '/api/login') {
  return {
    app: {
      ...base(host),
      authentication: {
        loggedInIndicator: 'HTTP/1\\.1 2\\d\\d',
        loggedOutIndicator: 'HTTP/1\\.1 401',
        usernamePassword: {
          type: 'JSON',
          loginPath,
          usernameField: 'email',
          passwordField: 'password',
          scanUsername: '${SCAN_USERNAME}',
          scanPassword: '${SCAN_PASSWORD}',
          otherParams: [{ name: 'client', val: 'scanner' }],
        },
        tokenExtraction: { type: 'TOKEN_PATH', value: 'data.auth.token' },
        tokenAuthorization: { type: 'HEADER', value: 'Authorization', tokenType: 'Bearer' },
        testPath: { path: '/api/me', type: 'BODY', success: '"email"' },
      },
    },
  };
}
