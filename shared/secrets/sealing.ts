import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { config } from '../config.ts';

// Integration secrets (webhook signing secrets, receiver URLs, custom header values) are stored sealed, never in
// plain text (docs/WEBHOOKS.md, Secrets): AES-256-GCM under the deployment's integration key, bound to the record
// they belong to (`context`, the additional authenticated data), so a sealed value copied into another record does
// not open. Locally the key is DATA_DIR/integrations.key (32 bytes, base64url, mode 0600, made on first start). On
// AWS it is derived (HKDF-SHA256) from a Secrets Manager secret of 64 random characters that the stack generates
// and only the functions that seal or open read.

const VERSION = 'v1';
let cached: Promise<Buffer> | undefined;

async function load(): Promise<Buffer> {
  if (config.integrationKeySecretArn) {
    // Imported on first use: only AWS needs it.
    const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    const client = new SecretsManagerClient({ region: config.region });
    const out = await client.send(new GetSecretValueCommand({ SecretId: config.integrationKeySecretArn }));
    const secret = out.SecretString ?? '';
    if (secret.length < 32) throw new Error('the integration key secret must hold at least 32 characters');
    return Buffer.from(hkdfSync('sha256', secret, 'hawk-api', 'integration sealing v1', 32));
  }
  if (!config.integrationKeyFile)
    throw new Error(
      'No integration key: set INTEGRATION_KEY_SECRET_ARN (AWS) or INTEGRATION_KEY_FILE (local): integration secrets cannot be sealed or opened',
    );
  const raw = Buffer.from((await readFile(config.integrationKeyFile, 'utf8')).trim(), 'base64url');
  if (raw.length !== 32) throw new Error(`${config.integrationKeyFile} must hold 32 bytes (base64url)`);
  return raw;
}

/** The key, loaded once per process (a Lambda container reuses it); a failed load is tried again next time. */
function integrationKey(): Promise<Buffer> {
  cached ??= load().catch((error) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

/** `plaintext` sealed for the record named by `context` (e.g. `webhook:<orgId>:<webhookId>`). */
export async function seal(plaintext: string, context: string): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await integrationKey(), iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The plaintext of a value sealed for `context`; throws when it was sealed for another record or altered. */
export async function unseal(sealed: string, context: string): Promise<string> {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed value');
  const decipher = createDecipheriv('aes-256-gcm', await integrationKey(), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
