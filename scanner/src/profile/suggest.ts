// The scan configuration a profile suggests (docs/PROFILE-SCANS.md, "The suggested configuration"): the `app` block
// with the target as app.host and, when the login was understood, an `authentication` block in the keys of
// docs/SCANNER-AUTH.md. Secrets are never filled in: they stay `${ENV_VAR}` references that the scanner reads from
// its environment, so the configuration can be stored and shared as it is.
import { stringify } from 'yaml';

export type LoginFinding =
  | {
      type: 'FORM';
      loginPagePath: string;
      loginPath: string;
      usernameField: string;
      passwordField: string;
      antiCsrfParam?: string;
      otherParams: { name: string; val: string }[];
    }
  | { type: 'JSON'; loginPath: string; usernameField: string; passwordField: string; tokenPath?: string }
  | { type: 'TOKEN' };

export interface SuggestionInput {
  applicationId: string;
  env: string;
  host: string;
  /** The target's base path (app.host keeps it; configuration paths are relative to it). */
  basePath: string;
  login?: LoginFinding;
  /** A path that answered without a session as a protected one: 401/403, or a redirect to the login page. */
  protectedPath?: { path: string; status: number; redirect?: string };
  openApiPath?: string;
  graphqlPath?: string;
}

/** A regular expression matching `text` literally. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function suggestConfiguration(input: SuggestionInput) {
  const relative = (path: string) =>
    input.basePath && path.startsWith(input.basePath) ? path.slice(input.basePath.length) || '/' : path;
  const app: Record<string, unknown> = { applicationId: input.applicationId, env: input.env, host: input.host };
  const secrets: string[] = [];
  let authComplete = false;
  let testPath: string | undefined;
  const login = input.login;
  if (login) {
    const authentication: Record<string, unknown> = {};
    const protectedPath = input.protectedPath;
    if (protectedPath?.redirect) authentication.loggedOutIndicator = `location: \\S*${literal(protectedPath.redirect)}`;
    else if (protectedPath || login.type !== 'FORM') authentication.loggedOutIndicator = 'HTTP/1\\.1 401';
    if (login.type === 'FORM') {
      if (login.antiCsrfParam) app.antiCsrfParam = login.antiCsrfParam;
      authentication.usernamePassword = {
        type: 'FORM',
        loginPagePath: relative(login.loginPagePath),
        loginPath: relative(login.loginPath),
        usernameField: login.usernameField,
        passwordField: login.passwordField,
        scanUsername: '${HAWK_SCAN_USERNAME}',
        scanPassword: '${HAWK_SCAN_PASSWORD}',
        ...(login.otherParams.length ? { otherParams: login.otherParams } : {}),
      };
      authentication.cookieAuthorization = {};
      secrets.push('HAWK_SCAN_USERNAME', 'HAWK_SCAN_PASSWORD');
      authComplete = true;
    } else if (login.type === 'JSON') {
      authentication.usernamePassword = {
        type: 'JSON',
        loginPath: relative(login.loginPath),
        usernameField: login.usernameField,
        passwordField: login.passwordField,
        scanUsername: '${HAWK_SCAN_USERNAME}',
        scanPassword: '${HAWK_SCAN_PASSWORD}',
      };
      authentication.tokenExtraction = { type: 'TOKEN_PATH', value: login.tokenPath ?? 'token' };
      authentication.tokenAuthorization = { type: 'HEADER', value: 'Authorization', tokenType: 'Bearer' };
      secrets.push('HAWK_SCAN_USERNAME', 'HAWK_SCAN_PASSWORD');
      authComplete = Boolean(login.tokenPath);
    } else {
      authentication.external = { type: 'TOKEN', value: '${HAWK_SCAN_AUTH_TOKEN}' };
      authentication.tokenAuthorization = { type: 'HEADER', value: 'Authorization', tokenType: 'Bearer' };
      secrets.push('HAWK_SCAN_AUTH_TOKEN');
    }
    if (protectedPath) {
      testPath = relative(protectedPath.path);
      authentication.testPath = { path: testPath, success: 'HTTP/1\\.1 2\\d\\d' };
    }
    app.authentication = authentication;
  }
  if (input.openApiPath) app.openApiConf = { path: relative(input.openApiPath) };
  if (input.graphqlPath) app.graphqlConf = { enabled: true, schemaPath: relative(input.graphqlPath) };
  const yaml = stringify({ app }, { lineWidth: 0 });
  return { yaml, secrets, authComplete, testPath };
}
