import { describe, expect, it } from 'vitest';
import { openRun, type RunContext } from '../src/agent/run-context.ts';
import type { StartCommand } from '../src/agent/run-command.ts';

// A hosted run's log (docs/HOSTED-SCANS.md, "Scan secrets"): the scan secrets the service gave with the run are
// never written to the log the service stores and serves, nor echoed to the agent's own output, whatever quotes them
// (a login URL carrying a token, a target's answer, an error message, which the run's end reports through redact).

describe("a run's log", () => {
  it('never holds the value of a scan secret of the run, and redacts its error message', () => {
    const echoed: string[] = [];
    const context = {
      deviceId: 'device',
      engines: [],
      allowPrivate: false,
      signal: new AbortController().signal,
      echo: (line: string) => echoed.push(line),
      secrets: { HAWK_SCAN_TOKEN: 's3cr3t-token', HAWK_SCAN_TOKEN_LONG: 's3cr3t-token-and-more', EMPTY: '' },
    } as unknown as RunContext;
    const command = { applicationId: 'app', scanKey: 'key', deadline: Date.now() + 60_000 } as unknown as StartCommand;
    const run = openRun(command, context, '/tmp');
    run.log.add('login FAIL login: POST http://target.test/login?token=s3cr3t-token-and-more 500 refused');
    run.log.add('the target answered {"echo":"s3cr3t-token"} and an empty field ""');
    const text = run.log.text();
    expect(text).not.toContain('s3cr3t');
    expect(text).toContain('login?token=*** 500');
    expect(text).toContain('{"echo":"***"} and an empty field ""');
    expect(echoed.join('\n')).not.toContain('s3cr3t');
    expect(run.log.redact('login failed: http://target.test/?t=s3cr3t-token answered 401')).toBe(
      'login failed: http://target.test/?t=*** answered 401',
    );
  });
});
