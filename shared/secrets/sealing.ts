import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { config } from '../config.ts';

// Integration secrets (webhook signing secrets, receiver URLs, custom header values, tracker tokens, SSO client
// secrets) are stored sealed, never in plain text (docs/WEBHOOKS.md, Secrets): AES-256-GCM, bound to the record they
// belong to (`context`, the additional authenticated data), so a sealed value copied into another record does not
// open.
// - On AWS (`k1.`): envelope encryption under the stack's KMS key. A process asks KMS for one data key
//   (GenerateDataKey) and seals with it; the data key, wrapped by KMS, is stored in each value. Opening a value asks
//   KMS to unwrap its data key (Decrypt), once per process and data key. The KMS key never leaves KMS.
// - Locally (`v1.`): the key is DATA_DIR/integrations.key (32 bytes, base64url, mode 0600, made on first start).

const LOCAL_VERSION = 'v1';
const KMS_VERSION = 'k1';
/** Binds the data keys to this use of the KMS key (KMS checks it on Decrypt and logs it in CloudTrail). */
const KMS_ENCRYPTION_CONTEXT = { purpose: 'hawk-api integration secrets' };
/** Unwrapped data keys kept per process: values sealed by other processes each carry their own data key. */
const MAX_UNWRAPPED_KEYS = 256;

let local: Promise<Buffer> | undefined;
let dataKey: Promise<{ key: Buffer; wrapped: string }> | undefined;
const unwrapped = new Map<string, Promise<Buffer>>();

/** A failed load is not kept: the next call tries again. */
function remembered<T>(load: () => Promise<T>, forget: () => void): Promise<T> {
  return load().catch((error: unknown) => {
    forget();
    throw error;
  });
}

async function loadLocalKey(): Promise<Buffer> {
  if (!config.integrationKeyFile)
    throw new Error(
      'No integration key: set INTEGRATION_KMS_KEY_ARN (AWS) or INTEGRATION_KEY_FILE (local): integration secrets cannot be sealed or opened',
    );
  const raw = Buffer.from((await readFile(config.integrationKeyFile, 'utf8')).trim(), 'base64url');
  if (raw.length !== 32) throw new Error(`${config.integrationKeyFile} must hold 32 bytes (base64url)`);
  return raw;
}

/** The data key this process seals with, and the same key as KMS wrapped it (base64url), stored in each value. */
async function generateDataKey(keyId: string): Promise<{ key: Buffer; wrapped: string }> {
  // Imported on first use: only AWS needs it.
  const { GenerateDataKeyCommand, KMSClient } = await import('@aws-sdk/client-kms');
  const client = new KMSClient({ region: config.region, endpoint: config.kmsEndpoint });
  const out = await client.send(
    new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: KMS_ENCRYPTION_CONTEXT }),
  );
  if (out.Plaintext?.length !== 32 || !out.CiphertextBlob) throw new Error('KMS returned no 256-bit data key');
  return { key: Buffer.from(out.Plaintext), wrapped: Buffer.from(out.CiphertextBlob).toString('base64url') };
}

async function unwrap(keyId: string, wrapped: string): Promise<Buffer> {
  const { DecryptCommand, KMSClient } = await import('@aws-sdk/client-kms');
  const client = new KMSClient({ region: config.region, endpoint: config.kmsEndpoint });
  const out = await client.send(
    new DecryptCommand({
      KeyId: keyId,
      CiphertextBlob: Buffer.from(wrapped, 'base64url'),
      EncryptionContext: KMS_ENCRYPTION_CONTEXT,
    }),
  );
  if (out.Plaintext?.length !== 32) throw new Error('KMS returned no 256-bit data key');
  return Buffer.from(out.Plaintext);
}

function localKey(): Promise<Buffer> {
  if (config.integrationKmsKeyArn)
    throw new Error('a value sealed with a local key file cannot be opened where the integration key is in KMS');
  local ??= remembered(loadLocalKey, () => (local = undefined));
  return local;
}

function unwrappedKey(wrapped: string): Promise<Buffer> {
  const keyId = config.integrationKmsKeyArn;
  if (!keyId) throw new Error('a value sealed under KMS cannot be opened without INTEGRATION_KMS_KEY_ARN');
  let key = unwrapped.get(wrapped);
  if (!key) {
    if (unwrapped.size >= MAX_UNWRAPPED_KEYS) unwrapped.delete(unwrapped.keys().next().value!);
    key = remembered(
      () => unwrap(keyId, wrapped),
      () => unwrapped.delete(wrapped),
    );
    unwrapped.set(wrapped, key);
  }
  return key;
}

/** `plaintext` sealed for the record named by `context` (e.g. `webhook:<orgId>:<webhookId>`). */
export async function seal(plaintext: string, context: string): Promise<string> {
  const keyId = config.integrationKmsKeyArn;
  if (keyId)
    dataKey ??= remembered(
      () => generateDataKey(keyId),
      () => (dataKey = undefined),
    );
  const { key, wrapped } = keyId ? await dataKey! : { key: await localKey(), wrapped: '' };
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const sealed = [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url'));
  return (keyId ? [KMS_VERSION, wrapped, ...sealed] : [LOCAL_VERSION, ...sealed]).join('.');
}

/** The plaintext of a value sealed for `context`; throws when it was sealed for another record or altered. */
export async function unseal(sealed: string, context: string): Promise<string> {
  const parts = sealed.split('.');
  const kms = parts[0] === KMS_VERSION && parts.length === 5;
  if (!kms && !(parts[0] === LOCAL_VERSION && parts.length === 4)) throw new Error('not a sealed value');
  const key = kms ? await unwrappedKey(parts[1]) : await localKey();
  const [iv, tag, body] = parts.slice(kms ? 2 : 1);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
