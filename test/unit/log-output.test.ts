import { describe, expect, it } from 'vitest';
import { compactLine } from '../../scripts/local/log-output.ts';

describe("npm start's terminal log lines", () => {
  it('turns a request log line into time, status, method, path and duration', () => {
    const line = compactLine({ level: 'INFO', message: 'request', timestamp: '2026-11-22T13:02:11.123Z', method: 'GET', path: '/api/v1/user', status: 200, durationMs: 14, requestId: 'x' });
    expect(line).toBe('13:02:11 200 GET /api/v1/user 14 ms');
  });

  it('keeps level, message and error message of other lines', () => {
    expect(compactLine({ level: 'ERROR', message: 'unexpected', timestamp: '2026-11-22T13:02:11.123Z', error: { message: 'boom' } })).toBe('13:02:11 ERROR unexpected boom');
  });
});
