import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';

// Shared pieces of `npm run bench`: timing statistics, progress output and the section interface.
export interface BenchContext {
  /** The local server's base URL (same handlers as Lambda, real DynamoDB Local and s3rver). */
  baseUrl: string;
  /** One line of progress on stderr (the results go to bench-results/). */
  progress(message: string): void;
}

export interface BenchSection {
  name: string;
  /** Returns the figures to record; keys become headings in bench-results/latest.md. */
  run(ctx: BenchContext): Promise<Record<string, unknown>>;
}

export interface Timing {
  n: number;
  p50Ms: number;
  p95Ms: number;
  meanMs: number;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** Percentiles and mean of latency samples (ms). */
export function timingOf(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { n: sorted.length, p50Ms: round(at(0.5)), p95Ms: round(at(0.95)), meanMs: round(mean) };
}

/** Runs `fn` `warmup` times unmeasured, then `n` times sequentially, and returns latency percentiles. */
export async function measure(fn: () => Promise<unknown>, n = 200, warmup = 20): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return timingOf(samples);
}

/** A fresh organization (or `existingOrgId`) with a new all-permission user, its API key and a logged-in token. */
export async function benchTenant(
  ctx: BenchContext,
  label: string,
  existingOrgId?: string,
): Promise<{ orgId: string; userId: string; apiKey: string; token: string }> {
  const { createOrganization, createUser, addMember, createApiKey } = await import('../../shared/identity/admin.ts');
  const orgId = existingOrgId ?? (await createOrganization({ name: `bench-${label}` })).organizationId;
  const { userId } = await createUser({ email: `bench-${label}-${Date.now()}@example.test` });
  await addMember({ organizationId: orgId, userId });
  const { apiKey } = await createApiKey({ userId });
  return { orgId, userId, apiKey, token: await benchLogin(ctx, apiKey) };
}

/** A fresh token for `apiKey` (a token lasts an hour: a longer section logs in again). */
export async function benchLogin(ctx: BenchContext, apiKey: string): Promise<string> {
  const response = await fetch(`${ctx.baseUrl}/api/v1/auth/login`, { headers: { 'x-apikey': apiKey } });
  return ((await response.json()) as { token: string }).token;
}

/**
 * Ids that are the same in every run (a UUID-shaped hash of `label` and the argument), so that seeded data sorts,
 * pages and matches text searches identically and two runs' read units compare exactly.
 */
export function seededIds(label: string): (key: string | number) => string {
  return (key) => {
    const hex = createHash('sha256').update(`${label}:${key}`).digest('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
}

/**
 * A caller of the local service as `token`: the answer parsed when it is JSON, else its text; anything but 200
 * throws with the start of the body.
 */
export function benchCaller(baseUrl: string, token: string) {
  return async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': contentType } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
    return text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  };
}
