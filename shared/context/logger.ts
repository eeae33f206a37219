import { currentScope } from './request-scope.ts';

// Structured JSON logs: one line per entry (level, message, timestamp, service, the request's id, attributes), INFO
// and DEBUG on stdout, WARN and ERROR on stderr, as Lambda and CloudWatch read them. Written here rather than with
// Powertools' Logger (@aws-lambda-powertools/logger 2.36, measured in place of this module: +22.7 KB in every
// function's bundle, 21 KB of it its own code, and ~2 ms more CPU to load, 59 -> 61 ms median of 15 for
// get-application) against the 150 KiB bundle target; none of its other features were used.
// LOG_LEVEL: DEBUG, INFO (default), WARN, ERROR or SILENT.
const LEVELS = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, SILENT: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, 'SILENT'>;
type Attributes = Record<string, unknown>;

const configured = (process.env.LOG_LEVEL ?? 'INFO').toUpperCase();
const threshold: number = LEVELS[configured as keyof typeof LEVELS] ?? LEVELS.INFO;

/** Errors as their name, message and stack (JSON.stringify drops them); a repeated object once. */
function serializable(): (key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return (_key, value) => {
    if (value instanceof Error)
      return {
        name: value.name,
        message: value.message,
        stack: value.stack,
        ...(value.cause ? { cause: value.cause } : {}),
      };
    if (typeof value === 'bigint') return value.toString();
    if (value && typeof value === 'object') {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  };
}

function write(level: Level, message: string, attributes: Attributes = {}): void {
  if (LEVELS[level] < threshold) return;
  // The id of the request being served, read from its AsyncLocalStorage scope when the line is written: concurrent
  // requests in one process (npm start, a Lambda serving several) never share or overwrite each other's id.
  const requestId = currentScope()?.requestId;
  const traceId = process.env._X_AMZN_TRACE_ID;
  const entry = {
    level,
    message,
    timestamp: new Date().toISOString(),
    service: 'hawk-api',
    ...(requestId ? { requestId } : {}),
    ...(traceId ? { xray_trace_id: traceId } : {}),
    ...attributes,
  };
  const line = `${JSON.stringify(entry, serializable())}\n`;
  (LEVELS[level] >= LEVELS.WARN ? process.stderr : process.stdout).write(line);
}

export const logger = {
  debug: (message: string, attributes?: Attributes) => write('DEBUG', message, attributes),
  info: (message: string, attributes?: Attributes) => write('INFO', message, attributes),
  warn: (message: string, attributes?: Attributes) => write('WARN', message, attributes),
  error: (message: string, attributes?: Attributes) => write('ERROR', message, attributes),
};
