import { describe, expect, it } from 'vitest';
import { analyzeBundle } from '../../infra/code-access.ts';

// The grants of a function follow from its bundle (docs/DEPLOYMENT.md, IAM derived from each bundle). These snippets
// are shaped as esbuild emits them for infra/bundling.ts (minified CommonJS, `@aws-sdk/*` external), cut to the parts
// read.
const config = 'var c={integrationKmsKeyArn:process.env.INTEGRATION_KMS_KEY_ARN};';
const kmsDecrypt = { service: 'kms', key: 'IntegrationKey', actions: ['Decrypt'] };

describe('analyzeBundle', () => {
  it('grants the commands constructed from an @aws-sdk module required whole', () => {
    const access = analyzeBundle(
      `${config}var s=require("@aws-sdk/client-kms");` +
        'async function f(n){return new s.KMSClient({}).send(new s.DecryptCommand({KeyId:c.integrationKmsKeyArn,CiphertextBlob:n}))}',
    );
    expect(access.commands).toEqual([{ command: 'DecryptCommand', module: '@aws-sdk/client-kms' }]);
    expect(access.grants).toEqual([kmsDecrypt]);
  });

  it('grants the commands destructured from a module loaded on use', () => {
    const access = analyzeBundle(
      `${config}var d=(n,e,t)=>n;` +
        'async function w(n){let{KMSClient:e,DecryptCommand:t}=await Promise.resolve().then(()=>d(require("@aws-sdk/client-kms"),1));' +
        'return new e({}).send(new t({KeyId:c.integrationKmsKeyArn,CiphertextBlob:n}))}',
    );
    expect(access.grants).toEqual([kmsDecrypt]);
  });

  it('refuses a command reached through a module object returned by a function', () => {
    const bundle =
      `${config}function u(){return require("@aws-sdk/client-kms")}` +
      'async function g(n){let k=u();return new k.KMSClient({}).send(new k.DecryptCommand({KeyId:c.integrationKmsKeyArn,CiphertextBlob:n}))}';
    expect(() => analyzeBundle(bundle)).toThrow(/new DecryptCommand\(\.\.\.\).*names imported from '@aws-sdk\/\*'/);
  });

  it('refuses a command reached through a module object kept in an object literal', () => {
    const bundle =
      `${config}var l={kms:require("@aws-sdk/client-kms")};` +
      'async function g(){return new l.kms.GenerateDataKeyCommand({KeyId:c.integrationKmsKeyArn,KeySpec:"AES_256"})}';
    expect(() => analyzeBundle(bundle)).toThrow(/new GenerateDataKeyCommand\(\.\.\.\)/);
  });

  it('refuses a command read by a computed property or from a local module', () => {
    expect(() =>
      analyzeBundle(`${config}var s=u();function g(){return new s["DecryptCommand"]({KeyId:c.integrationKmsKeyArn})}`),
    ).toThrow(/new DecryptCommand\(\.\.\.\)/);
    expect(() =>
      analyzeBundle(
        `${config}var s=require("./kms");function g(){return new s.DecryptCommand({KeyId:c.integrationKmsKeyArn})}`,
      ),
    ).toThrow(/new DecryptCommand\(\.\.\.\)/);
  });

  it('ignores classes that are not SDK commands, a bare Command among them', () => {
    const access = analyzeBundle(
      'var e=require("node:http"),m=require("commander");' +
        'function g(){new e.Server();new m.Command();new Map;new Error("x");return new URL("http://x")}',
    );
    expect(access).toEqual({ commands: [], presigns: false, grants: [] });
  });
});
