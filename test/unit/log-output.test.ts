import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compactLine } from '../../scripts/local/log-output.ts';

describe("npm start's terminal log lines", () => {
  it('turns a request log line into time, status, method, path and duration', () => {
    const line = compactLine({
      level: 'INFO',
      message: 'request',
      timestamp: '2026-11-22T13:02:11.123Z',
      method: 'GET',
      path: '/api/v1/user',
      status: 200,
      durationMs: 14,
      requestId: 'x',
    });
    expect(line).toBe('13:02:11 200 GET /api/v1/user 14 ms');
  });

  it('keeps level, message and error message of other lines', () => {
    expect(
      compactLine({
        level: 'ERROR',
        message: 'unexpected',
        timestamp: '2026-11-22T13:02:11.123Z',
        error: { message: 'boom' },
      }),
    ).toBe('13:02:11 ERROR unexpected boom');
  });

  it('writes JSON lines to the file and compact lines to the terminal together, within a moment, in order, and the rest at exit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'log-output-'));
    try {
      const file = join(dir, 'logs', 'hawk-api.log');
      const script = `
        const { compactLogs } = await import(${JSON.stringify(new URL('../../scripts/local/log-output.ts', import.meta.url).pathname)});
        compactLogs(${JSON.stringify(file)});
        const line = (path) => console.log(JSON.stringify({ level: 'INFO', message: 'request', timestamp: '2026-11-22T13:02:11.123Z', method: 'GET', path, status: 200, durationMs: 3 }));
        line('/a'); line('/b');
        console.log('plain text');
        line('/c');
        const { readFileSync } = await import('node:fs');
        const inFile = () => readFileSync(${JSON.stringify(file)}, 'utf8').split('\\n').filter(Boolean).length;
        console.error(inFile() === 2 ? '' : 'the lines before the plain text are not in the file yet');
        await new Promise((resolve) => setTimeout(resolve, 500)); // more than the flush delay: written without an exit
        process.stderr.write(inFile() === 3 ? '' : 'the line after the plain text was not written within 500 ms');
        line('/d'); // pending when the process exits
        process.exit(0);`;
      const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
      });
      expect(run.stderr.trim()).toBe('');
      expect(run.stdout.split('\n').filter(Boolean)).toEqual([
        '13:02:11 200 GET /a 3 ms',
        '13:02:11 200 GET /b 3 ms',
        'plain text',
        '13:02:11 200 GET /c 3 ms',
        '13:02:11 200 GET /d 3 ms',
      ]);
      expect(
        readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).path),
      ).toEqual(['/a', '/b', '/c', '/d']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
