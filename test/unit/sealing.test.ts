import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startKmsPeer, type KmsPeer } from './kms-peer.ts';

// Integration secrets are sealed (shared/secrets/sealing.ts; docs/WEBHOOKS.md, Secrets): under a local key file, or
// on AWS under data keys that KMS wraps. The KMS path runs against a KMS peer on loopback through the real SDK.
type Sealing = typeof import('../../shared/secrets/sealing.ts');

let kms: KmsPeer;
let directory: string;
const saved = { ...process.env };

/** A fresh process's view of sealing: config is read from the environment when the module loads. */
async function sealingWith(env: Record<string, string | undefined>): Promise<Sealing> {
  vi.resetModules();
  for (const name of ['INTEGRATION_KMS_KEY_ARN', 'KMS_ENDPOINT', 'INTEGRATION_KEY_FILE']) delete process.env[name];
  Object.assign(process.env, env);
  return import('../../shared/secrets/sealing.ts');
}

beforeAll(async () => {
  kms = await startKmsPeer();
  directory = mkdtempSync(join(tmpdir(), 'hawk-sealing-'));
});

beforeEach(() => {
  kms.calls.length = 0;
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
});

afterAll(async () => {
  await kms.close();
  rmSync(directory, { recursive: true, force: true });
  process.env = saved;
});

describe('sealing under KMS', () => {
  const aws = () => ({ INTEGRATION_KMS_KEY_ARN: kms.keyArn, KMS_ENDPOINT: kms.endpoint });

  it('seals with one data key per process and opens each value, unwrapping its data key once', async () => {
    const sealing = await sealingWith(aws());
    const values = await Promise.all(
      Array.from({ length: 20 }, (_, i) => sealing.seal(`token-${i}`, `tracker:org:${i}`)),
    );
    for (const value of values) {
      expect(value).toMatch(/^k1\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(value).not.toContain('token-');
    }
    expect(kms.calls.map((c) => c.operation)).toEqual(['GenerateDataKey']);
    expect(kms.calls[0].body).toMatchObject({ KeyId: kms.keyArn, KeySpec: 'AES_256' });

    const opened = await Promise.all(values.map((value, i) => sealing.unseal(value, `tracker:org:${i}`)));
    expect(opened).toEqual(values.map((_, i) => `token-${i}`));
    expect(kms.calls.map((c) => c.operation)).toEqual(['GenerateDataKey', 'Decrypt']);
  });

  it("opens another process's values with their own data key, and refuses another record's or an altered value", async () => {
    const first = await sealingWith(aws());
    const sealed = await first.seal('xoxb-secret', 'webhook:org-a:hook-1');
    const second = await sealingWith(aws());
    const own = await second.seal('other', 'webhook:org-a:hook-2');
    expect(own.split('.')[1]).not.toBe(sealed.split('.')[1]);
    expect(await second.unseal(sealed, 'webhook:org-a:hook-1')).toBe('xoxb-secret');

    await expect(second.unseal(sealed, 'webhook:org-b:hook-1')).rejects.toThrow();
    const parts = sealed.split('.');
    const body = Buffer.from(parts[4], 'base64url');
    body[0] ^= 1;
    await expect(
      second.unseal([...parts.slice(0, 4), body.toString('base64url')].join('.'), 'webhook:org-a:hook-1'),
    ).rejects.toThrow();
    // A wrapped data key that KMS does not recognise.
    const wrapped = Buffer.from(parts[1], 'base64url');
    wrapped[20] ^= 1;
    await expect(
      second.unseal([parts[0], wrapped.toString('base64url'), ...parts.slice(2)].join('.'), 'webhook:org-a:hook-1'),
    ).rejects.toThrow(/ciphertext/i);
  });

  it('tries KMS again after a failure instead of keeping it', async () => {
    const sealing = await sealingWith({ INTEGRATION_KMS_KEY_ARN: `${kms.keyArn}-gone`, KMS_ENDPOINT: kms.endpoint });
    await expect(sealing.seal('x', 'c')).rejects.toThrow(/does not exist/);
    await expect(sealing.seal('x', 'c')).rejects.toThrow(/does not exist/);
    expect(kms.calls.map((c) => c.operation)).toEqual(['GenerateDataKey', 'GenerateDataKey']);
  });
});

describe('sealing under a local key file', () => {
  it('seals without KMS, and a local value does not open where the key is in KMS', async () => {
    const keyFile = join(directory, 'integrations.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64url'));
    chmodSync(keyFile, 0o600);
    const local = await sealingWith({ INTEGRATION_KEY_FILE: keyFile });
    const sealed = await local.seal('ghp_token', 'tracker:org:1');
    expect(sealed).toMatch(/^v1\./);
    expect(await local.unseal(sealed, 'tracker:org:1')).toBe('ghp_token');
    await expect(local.unseal(sealed, 'tracker:org:2')).rejects.toThrow();
    expect(kms.calls).toEqual([]);

    const onAws = await sealingWith({ INTEGRATION_KMS_KEY_ARN: kms.keyArn, KMS_ENDPOINT: kms.endpoint });
    await expect(onAws.unseal(sealed, 'tracker:org:1')).rejects.toThrow(/local key file/);
    await expect(local.unseal('v2.a.b.c', 'x')).rejects.toThrow(/not a sealed value/);
  });
});
