import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { textWithSecretReferences, withSecretReferences } from '../../shared/scans/secret-references.ts';

// Literal credentials of a configuration move into the scan secrets, the configuration keeping `${NAME}` references
// (docs/HOSTED-SCANS.md, "Scan secrets").

describe('withSecretReferences', () => {
  it('replaces every literal credential by a reference, named after where it was; references and the rest stay', () => {
    const conf = {
      app: {
        host: 'http://target.test',
        authentication: {
          usernamePassword: {
            scanUsername: 'alice',
            scanPassword: 'pw-1',
            otherParams: [{ name: 'Authorization', val: 'Basic abc' }],
          },
          external: { type: 'TOKEN', value: '${HAWK_SCAN_TOKEN}' },
          script: { credentials: { password: 'pw-2', note: 'Bearer ${X}' } },
        },
      },
    };
    const { conf: out, moved } = withSecretReferences(conf);
    expect(moved.map(({ name, value }) => [name, value])).toEqual([
      ['USERNAME_PASSWORD_SCAN_PASSWORD', 'pw-1'],
      ['USERNAME_PASSWORD_OTHER_PARAMS_0_VAL', 'Basic abc'],
      ['SCRIPT_CREDENTIALS_PASSWORD', 'pw-2'],
    ]);
    expect(out.app.authentication.usernamePassword).toEqual({
      scanUsername: 'alice',
      scanPassword: '${USERNAME_PASSWORD_SCAN_PASSWORD}',
      otherParams: [{ name: 'Authorization', val: '${USERNAME_PASSWORD_OTHER_PARAMS_0_VAL}' }],
    });
    expect(out.app.authentication.external.value).toBe('${HAWK_SCAN_TOKEN}');
    // References after an authorization scheme hold no secret: they stay (reads still redact them).
    expect(out.app.authentication.script.credentials.note).toBe('Bearer ${X}');
    expect(conf.app.authentication.usernamePassword.scanPassword).toBe('pw-1');
  });

  it('edits a YAML text in place, keeping its comments, and leaves a text without literals as it was', () => {
    const text =
      '# the shop\napp:\n  host: http://t.test # target\n  authentication:\n    usernamePassword:\n      scanPassword: "pw: #1"\n';
    const { text: out, moved } = textWithSecretReferences(text, parse(text));
    expect(moved.map((secret) => secret.value)).toEqual(['pw: #1']);
    expect(out).toContain('# the shop');
    expect(out).toContain('# target');
    expect(out).not.toContain('pw: #1');
    expect(parse(out).app.authentication.usernamePassword.scanPassword).toBe('${USERNAME_PASSWORD_SCAN_PASSWORD}');
    const plain = 'app:\n  host: http://t.test\n';
    expect(textWithSecretReferences(plain, parse(plain))).toEqual({ text: plain, moved: [] });
  });

  it('refuses a credential mixing literal text with a reference, naming where; a migration leaves it', () => {
    for (const value of ['Bearer abc${X}', 'abc${X}', '${X}abc', '${X:pw-default}', 'Bearer ${X} abc']) {
      const conf = { app: { authentication: { external: { type: 'TOKEN', value } } } };
      expect(() => withSecretReferences(conf), value).toThrow(
        'app.authentication.external.value: a credential mixes literal text with a ${NAME} reference',
      );
      expect(withSecretReferences(conf, undefined, true)).toEqual({ conf, moved: [] });
    }
    const text = 'hawk:\n  config:\n    - name: Authorization\n      val: Bearer abc${X}\n';
    expect(() => textWithSecretReferences(text, parse(text))).toThrow('hawk.config.0.val: a credential mixes');
  });

  it("reuses the owner's secret holding the same value and never takes one holding another", () => {
    const held = new Map([
      ['USERNAME_PASSWORD_SCAN_PASSWORD', { value: 'pw-a', sealedValue: 'v1.x' }],
      ['EXTERNAL_VALUE', { value: 'token-b', sealedValue: 'v1.x' }],
    ]);
    const conf = {
      app: {
        authentication: {
          usernamePassword: { scanPassword: 'pw-other' },
          external: { type: 'TOKEN', value: 'token-b' },
        },
      },
    };
    const { moved } = withSecretReferences(conf, held);
    expect(moved.map(({ name, value }) => [name, value])).toEqual([
      ['USERNAME_PASSWORD_SCAN_PASSWORD_2', 'pw-other'],
      ['EXTERNAL_VALUE', 'token-b'],
    ]);
  });
});
