import { describe, expect, it, vi } from 'vitest';
import { logger } from '../../shared/context/logger.ts';
import { runInScope } from '../../shared/context/request-scope.ts';

describe('log lines of concurrent requests', () => {
  it('each carry the id of their own request', async () => {
    const lines: string[] = [];
    const capture = (chunk: string | Uint8Array) => (lines.push(String(chunk)), true);
    const writes = [
      vi.spyOn(process.stdout, 'write').mockImplementation(capture),
      vi.spyOn(process.stderr, 'write').mockImplementation(capture),
    ];
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
    const request = (requestId: string) =>
      runInScope({ requestId, dynamodbCalls: 0 }, async () => {
        for (let step = 0; step < 3; step++) {
          logger.warn('step', { mine: requestId, step }); // warn: the integration setup may set LOG_LEVEL=WARN
          await tick(); // the other requests log meanwhile
        }
      });
    try {
      await Promise.all(['request-a', 'request-b', 'request-c'].map(request));
    } finally {
      for (const write of writes) write.mockRestore();
    }
    const logged = lines
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('"step"'))
      .map((line) => JSON.parse(line));
    expect(logged).toHaveLength(9);
    for (const line of logged) expect(line.requestId).toBe(line.mine);
  });

  it('writes errors with their message and stack, on stderr, as one JSON line with level, timestamp and service', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const writes = [
      vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true)),
      vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true)),
    ];
    try {
      await runInScope({ requestId: 'request-e', dynamodbCalls: 0 }, async () =>
        logger.error('unexpected error', { error: new TypeError('boom'), count: 2 }),
      );
    } finally {
      for (const write of writes) write.mockRestore();
    }
    expect(out.join('')).not.toContain('unexpected error');
    const line = JSON.parse(err.join('').trim());
    expect(line).toMatchObject({
      level: 'ERROR',
      message: 'unexpected error',
      service: 'hawk-api',
      requestId: 'request-e',
      count: 2,
      error: { name: 'TypeError', message: 'boom' },
    });
    expect(line.error.stack).toContain('TypeError: boom');
    expect(new Date(line.timestamp).toISOString()).toBe(line.timestamp);
  });
});
