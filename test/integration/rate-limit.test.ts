import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { admit } from '../../shared/http/rate-limit.ts';

// The sliding window itself, driven with explicit clock values against DynamoDB Local.
const subject = () => ({ pk: `test#${randomUUID()}` });
const T0 = 1_800_000_000_000;
const admitted = async (key: { pk: string }, count: number, nowMs: number, limit = 180) =>
  (await Promise.all(Array.from({ length: count }, () => admit(key, limit, nowMs)))).filter((d) => d.admitted).length;

describe('sliding-window rate limit', () => {
  it('admits exactly the limit from a concurrent burst', async () => {
    expect(await admitted(subject(), 300, T0)).toBe(180);
  });

  it('slides: requests leave the window 60 s after their second, not at a fixed minute boundary', async () => {
    const key = subject();
    expect(await admitted(key, 100, T0)).toBe(100);
    expect(await admitted(key, 100, T0 + 30_000)).toBe(80); // 180 in the last 60 s
    const refused = await admit(key, 180, T0 + 59_999);
    expect(refused).toEqual({ admitted: false, retryAfterSeconds: 1 });
    expect(await admitted(key, 120, T0 + 60_000)).toBe(100); // the 100 from T0 slid out; the 80 from T0+30 s remain
    const later = await admit(key, 180, T0 + 61_000);
    expect(later).toEqual({ admitted: false, retryAfterSeconds: 29 }); // the T0+30 s requests leave at T0+90 s
    expect(await admitted(key, 200, T0 + 200_000)).toBe(180); // an idle minute resets everything
  });

  it('tells how long to wait before the next request fits', async () => {
    const key = subject();
    expect(await admitted(key, 10, T0, 10)).toBe(10);
    expect(await admit(key, 10, T0 + 15_000)).toEqual({ admitted: false, retryAfterSeconds: 45 });
  });

  it('stays exact when concurrent bursts straddle a second boundary', async () => {
    const key = subject();
    const counts = await Promise.all([
      admitted(key, 150, T0),
      admitted(key, 150, T0 + 1000),
      admitted(key, 150, T0 + 2000),
    ]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(180);
  });

  it('keeps subjects independent', async () => {
    const [a, b] = [subject(), subject()];
    expect(await admitted(a, 5, T0, 5)).toBe(5);
    expect(await admitted(b, 5, T0, 5)).toBe(5);
  });
});
