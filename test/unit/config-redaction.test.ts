import { describe, expect, it } from 'vitest';
import { REDACTED, redactCredentials } from '../../shared/scans/redaction.ts';

// Every read of a stored scan configuration redacts its credentials (shared/scans/redaction.ts).

describe('redactCredentials', () => {
  it('redacts passwords, tokens, secrets, credential maps and credential headers; keeps ${VAR} references', () => {
    const conf = {
      app: {
        host: 'http://target.test',
        authentication: {
          usernamePassword: {
            type: 'FORM',
            scanUsername: 'alice',
            scanPassword: 'pw-1',
            otherParams: [
              { name: 'remember', val: 'yes' },
              { name: 'Authorization', val: 'Basic abc' },
            ],
          },
          external: {
            type: 'TOKEN',
            value: 'tok-1',
            values: [{ tokenType: 'Bearer', value: { name: 'sid', val: 'tok-2' } }],
          },
          tokenExtraction: { type: 'TOKEN_PATH', value: 'data.token' },
          tokenAuthorization: { type: 'HEADER', value: 'Authorization', tokenType: 'Bearer' },
          script: { name: 'login.js', credentials: { username: 'bob', password: 'pw-2' } },
          oauth: { credentials: { clientId: 'c', clientSecret: 'sec-1' } },
        },
      },
      hawk: {
        config: ['replacer.full_list(0).matchstr=Cookie'],
        replacer: {
          rules: [
            { matchString: 'Cookie', replacement: 'sid=sec-2' },
            { matchString: 'X-Trace', replacement: 'keep' },
          ],
        },
        proxy: { credentials: { password: '${HAWK_SCAN_PROXY_PASSWORD}' } },
      },
    };
    const redacted = redactCredentials(conf);
    expect(JSON.stringify(redacted)).not.toMatch(/pw-1|pw-2|tok-1|tok-2|sec-1|sec-2|Basic abc/);
    expect(redacted.app.authentication.usernamePassword).toEqual({
      type: 'FORM',
      scanUsername: 'alice',
      scanPassword: REDACTED,
      otherParams: [
        { name: 'remember', val: 'yes' },
        { name: 'Authorization', val: REDACTED },
      ],
    });
    expect(redacted.app.authentication.external).toEqual({
      type: 'TOKEN',
      value: REDACTED,
      values: [{ tokenType: 'Bearer', value: { name: 'sid', val: REDACTED } }],
    });
    expect(redacted.app.authentication.tokenExtraction).toEqual(conf.app.authentication.tokenExtraction);
    expect(redacted.app.authentication.tokenAuthorization).toEqual(conf.app.authentication.tokenAuthorization);
    expect(redacted.hawk.replacer.rules[1]).toEqual({ matchString: 'X-Trace', replacement: 'keep' });
    expect(redacted.hawk.proxy.credentials.password).toBe('${HAWK_SCAN_PROXY_PASSWORD}');
    expect(
      redactCredentials({ app: { authentication: { usernamePassword: { scanPassword: '${A:default}' } } } }),
    ).toEqual({ app: { authentication: { usernamePassword: { scanPassword: REDACTED } } } });
    expect(conf.app.authentication.usernamePassword.scanPassword).toBe('pw-1'); // a copy: the original is untouched
  });
});
