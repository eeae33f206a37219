import { spawn } from 'node:child_process';
import { EngineError, type EngineRun } from './engine.ts';

// An engine's own process, run to its end the same way for every engine: its output logged line by line, a stop or
// the run's deadline ending it with SIGTERM (SIGINT opens Wapiti's prompt), then SIGKILL after a grace period.

const KILL_GRACE_MS = 5000;
/** Output lines kept for the error of a failed run. */
const TAIL_LINES = 40;
/** A logged line is cut to this many characters. */
const LOG_LINE_CHARS = 500;

export interface EngineProcess {
  /** The name each log line starts with (`wapiti: ...`). */
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Each output line after `clean`, before it is logged (the engine reads its progress from them). */
  onLine?: (line: string) => void;
  clean?: (line: string) => string;
  /** The error of a process that could not start, saying how to install the engine. */
  startError: (message: string) => EngineError;
}

/** Runs the process until it exits: its exit code (or the signal that ended it) and its last output lines. */
export function runEngineProcess(
  run: EngineRun,
  options: EngineProcess,
): Promise<{ code: number | string; tail: string[] }> {
  const tail: string[] = [];
  return new Promise((resolve, reject) => {
    const child = spawn(options.command, options.args, { stdio: ['ignore', 'pipe', 'pipe'], env: options.env });
    let partial = '';
    const onOutput = (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const clean = (options.clean ? options.clean(line) : line).trimEnd();
        if (!clean) continue;
        run.log(`${options.name}: ${clean.slice(0, LOG_LINE_CHARS)}`);
        options.onLine?.(clean);
        tail.push(clean);
        if (tail.length > TAIL_LINES) tail.shift();
      }
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    let killTimer: NodeJS.Timeout | undefined;
    const terminate = (why: string) => {
      run.log(`${options.name}: ${why}: SIGTERM, SIGKILL after ${KILL_GRACE_MS / 1000} s`);
      child.kill('SIGTERM');
      killTimer ??= setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    };
    const onAbort = () => terminate('stopped');
    run.signal.addEventListener('abort', onAbort, { once: true });
    if (run.signal.aborted) onAbort();
    const deadlineTimer = setTimeout(() => terminate('past the scan deadline'), Math.max(0, run.deadline - Date.now()));
    child.on('error', (error) => reject(options.startError(error.message)));
    child.on('close', (exitCode, signal) => {
      clearTimeout(deadlineTimer);
      clearTimeout(killTimer);
      run.signal.removeEventListener('abort', onAbort);
      resolve({ code: exitCode ?? signal ?? 'unknown', tail });
    });
  });
}
