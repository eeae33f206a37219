import { createSecretKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { config } from '../config.ts';

// The JWT signing secret: from Secrets Manager on AWS, from a file under DATA_DIR locally. Never in code,
// never logged. Loaded once per process (a Lambda container reuses it across invocations).
let cached: Promise<KeyObject> | undefined;

async function load(): Promise<KeyObject> {
  let secret: string | undefined;
  if (config.signingSecretArn) {
    // Imported on first use: only AWS needs it, and it is one more client to load on every cold start.
    const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    const client = new SecretsManagerClient({ region: config.region });
    const out = await client.send(new GetSecretValueCommand({ SecretId: config.signingSecretArn }));
    secret = out.SecretString;
  } else if (config.signingKeyFile) {
    secret = (await readFile(config.signingKeyFile, 'utf8')).trim();
  }
  if (!secret || secret.length < 32) {
    throw new Error(
      'No JWT signing secret: set SIGNING_SECRET_ARN (AWS) or SIGNING_KEY_FILE (local, at least 32 characters)',
    );
  }
  return createSecretKey(Buffer.from(secret, 'utf8'));
}

export function signingKey(): Promise<KeyObject> {
  cached ??= load().catch((error) => {
    cached = undefined; // a transient failure must not poison the container
    throw error;
  });
  return cached;
}
