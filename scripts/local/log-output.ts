import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

// `npm start`'s terminal shows the one-time API key and then one short line per request; the full structured
// JSON lines (Powertools) go to a file under DATA_DIR. `npm start -- --json-logs` prints the JSON lines instead.

/** `{"level":"INFO","message":"request","method":"GET","path":"/api/v1/user","status":200,...}` -> a compact line. */
export function compactLine(json: Record<string, unknown>): string {
  const time =
    typeof json.timestamp === 'string' ? json.timestamp.slice(11, 19) : new Date().toISOString().slice(11, 19);
  if (json.message === 'request') {
    const parts = [
      time,
      String(json.status ?? '-'),
      json.method,
      json.path,
      json.durationMs !== undefined ? `${json.durationMs} ms` : undefined,
    ];
    return parts.filter((p) => p !== undefined).join(' ');
  }
  const error = json.error as { message?: string } | undefined;
  return [time, json.level, json.message, error?.message].filter(Boolean).join(' ');
}

/** How long a line may wait to be written with the ones after it (a person reading the terminal does not notice). */
const FLUSH_DELAY_MS = 100;

/**
 * Routes this process's JSON log lines (stdout) to `file`, printing a compact line for each instead. Lines are
 * written after the response they describe has gone out, at most FLUSH_DELAY_MS later and several at once: the
 * request path never waits for the terminal or the disk, and a burst of requests costs one file append and one
 * terminal write, not one of each per request (each write also wakes whoever reads the terminal); whatever is
 * pending at exit is written then.
 */
export function compactLogs(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const write = process.stdout.write.bind(process.stdout);
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    appendFileSync(file, text, { mode: 0o600 });
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        try {
          return compactLine(JSON.parse(line));
        } catch {
          return line;
        }
      });
    write(`${lines.join('\n')}\n`);
  };
  process.on('exit', flush);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    const text = String(chunk);
    if (!text.startsWith('{')) {
      flush(); // keeps the order of the lines
      return write(chunk, ...rest);
    }
    if (pending.length === 0) setTimeout(flush, FLUSH_DELAY_MS).unref();
    pending.push(text.endsWith('\n') ? text : `${text}\n`);
    return true;
  }) as typeof process.stdout.write;
}
