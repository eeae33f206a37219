import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { authorizationProblems, withoutAuthorization } from '../../shared/scans/authorization-config.ts';
import { parseScanConfig } from '../../shared/scans/configs.ts';
import { redactCredentials } from '../../shared/scans/redaction.ts';
import { textWithSecretReferences } from '../../shared/scans/secret-references.ts';

// `hawk.authorization` (docs/SCANNER-AUTH.md, Authorization testing): our extension of the scan configuration,
// checked strictly by the service, its users' credentials handled like the primary user's.

const TEXT = `app:
  host: http://shop.test
  authentication:
    usernamePassword: { type: FORM, loginPath: /login, usernameField: u, passwordField: p, scanUsername: alice, scanPassword: "\${ALICE_PASSWORD}" }
    cookieAuthorization: { cookieNames: [sid] }
hawk:
  spider: { base: true }
  authorization:
    users:
      - name: bob
        authentication:
          usernamePassword: { type: FORM, loginPath: /login, usernameField: u, passwordField: p, scanUsername: bob, scanPassword: bob-pw }
          cookieAuthorization: { cookieNames: [sid] }
    excludePaths: ["^/logout"]
    testUnauthenticated: true
    replayUnsafeMethods: false
    maxRequests: 200
`;

describe('hawk.authorization', () => {
  it('is accepted with users, paths to leave alone and its options; the rest is checked as before', () => {
    const parsed = parseScanConfig(TEXT);
    expect(authorizationProblems(parsed, 'config')).toEqual([]);
    expect(withoutAuthorization(parsed)).toEqual({ ...parsed, hawk: { spider: { base: true } } });
  });

  it('refuses unknown keys and wrong values with a 400 naming each field', () => {
    const bad = TEXT.replace('maxRequests: 200', 'maxRequests: 0\n    replayUnsafe: true')
      .replace('- name: bob', '- name: "bob smith"\n        role: user')
      .replace('cookieNames: [sid] }\n    exclude', 'cookeNames: [sid] }\n    exclude')
      .replace('"^/logout"', '"(unclosed"');
    expect(() => parseScanConfig(bad)).toThrow(
      expect.objectContaining({
        statusCode: 400,
        message: [
          'config.hawk.authorization.replayUnsafe: unknown key (allowed: users, excludePaths, testUnauthenticated, replayUnsafeMethods, maxRequests)',
          'config.hawk.authorization.users[0].role: unknown key (allowed: name, authentication)',
          'config.hawk.authorization.users[0].name: must be 1 to 64 letters, digits, _ . or -',
          'config.hawk.authorization.users[0].authentication.cookieAuthorization.cookeNames: unknown key',
          'config.hawk.authorization.maxRequests: must be a whole number from 1 to 100000',
          'config.hawk.authorization.excludePaths[0]: is not a valid regular expression',
        ].join('; '),
      }),
    );
    expect(authorizationProblems(parse('hawk: { authorization: { users: [] } }'), 'config')).toEqual([
      'config.hawk.authorization: needs app.authentication, the primary user whose requests the other users replay',
      'config.hawk.authorization.users: required: a list of at least one user, each {name, authentication}',
    ]);
  });

  it("moves another user's literal credential to a secret named after the user; reads redact it", () => {
    const { text, moved } = textWithSecretReferences(TEXT, parse(TEXT));
    expect(moved.map(({ name, value }) => [name, value])).toEqual([
      ['USER_BOB_USERNAME_PASSWORD_SCAN_PASSWORD', 'bob-pw'],
    ]);
    expect(text).not.toContain('bob-pw');
    expect(parse(text).hawk.authorization.users[0].authentication.usernamePassword.scanPassword).toBe(
      '${USER_BOB_USERNAME_PASSWORD_SCAN_PASSWORD}',
    );
    const redacted = redactCredentials(parse(TEXT));
    expect(redacted.hawk.authorization.users[0].authentication.usernamePassword.scanPassword).toBe('********');
  });
});
