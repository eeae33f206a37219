import { createHash, randomBytes } from 'node:crypto';

// API keys look like the public service's: `hawk.<keyId>.<secret>`. The key id is public (listing, revoking);
// the whole key is stored only as its SHA-256 hash. The secret holds 256 random bits, so a fast hash suffices:
// there is nothing to brute-force that is cheaper than guessing the key itself.
export function generateApiKey(): { keyId: string; apiKey: string } {
  const keyId = randomBytes(10).toString('base64url');
  return { keyId, apiKey: `hawk.${keyId}.${randomBytes(32).toString('base64url')}` };
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** The API key as it is looked up and rate limited: surrounding whitespace (any Unicode space) is not part of it. */
export const normalizedApiKey = (header: string | undefined) => (header ?? '').trim();
