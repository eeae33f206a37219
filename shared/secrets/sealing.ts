import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { config } from '../config.ts';

// Integration secrets (webhook signing secrets, custom header values) are stored sealed, never in plain text
// (docs/WEBHOOKS.md, Secrets): AES-256-GCM under the deployment's integration key, bound to the record they
// belong to (`context`, the additional authenticated data), so a sealed value copied into another record does not
// open. Locally the key is DATA_DIR/integrations.key (mode 0600, made on first start).

const VERSION = 'v1';
let key: Buffer | undefined;

function integrationKey(): Buffer {
  if (key) return key;
  if (!config.integrationKeyFile)
    throw new Error('INTEGRATION_KEY_FILE is not set: integration secrets cannot be sealed or opened');
  const raw = Buffer.from(readFileSync(config.integrationKeyFile, 'utf8').trim(), 'base64url');
  if (raw.length !== 32) throw new Error(`${config.integrationKeyFile} must hold 32 bytes (base64url)`);
  return (key = raw);
}

/** `plaintext` sealed for the record named by `context` (e.g. `webhook:<orgId>:<webhookId>`). */
export function seal(plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', integrationKey(), iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The plaintext of a value sealed for `context`; throws when it was sealed for another record or altered. */
export function unseal(sealed: string, context: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed value');
  const decipher = createDecipheriv('aes-256-gcm', integrationKey(), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
