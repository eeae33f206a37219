// The scanner's calls to the service, for every command (import, sarif, the agent): outbound only, with an access
// token from the API key (renewed once on 401, or a token source for an agent the service embeds), retrying network
// errors, 5xx and 429 (after its Retry-After) with capped exponential backoff. The one retry policy of the client.
// Callers name their operation through api/call.ts (paths and types from openapi.json).
import type { paths } from '../api/schema.gen.ts';

export class ServiceError extends Error {
  override name = 'ServiceError';
  constructor(
    /** The status the service answered; 0 when it never answered (network errors, retries used up). */
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ServiceOptions {
  url: string;
  /** An API key (HAWK_API_KEY), exchanged for access tokens. */
  apiKey?: string;
  /** Or a source of access tokens (an agent embedded in the service). */
  token?: () => Promise<string>;
  /** Retries after the first attempt (default 5). */
  retries?: number;
  /** Statuses below 500 that are retried besides 429 (import: 409 a concurrent change, 413 storing took too long). */
  retryStatuses?: number[];
  /** What a failed login is called in its error: the key's name as the user set it. */
  keyName?: string;
}

export interface CallOptions {
  /** A plain-text body instead of JSON. */
  text?: string;
  /** The media type asked for (default JSON). */
  accept?: string;
  timeoutMs?: number;
  /** Ends the call (and its retries) at once: it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Told before each retry (a progress line). */
  onRetry?: () => void;
}

export interface Service {
  /** The answer's JSON (`{}` for an answer that is not JSON). */
  call<T>(method: string, path: string, body?: unknown, options?: CallOptions): Promise<T>;
  /** The successful answer itself, for a body read as text or a header (a SARIF log's parts). */
  fetch(method: string, path: string, body?: unknown, options?: CallOptions): Promise<Response>;
  /** The access token calls are made with (logged in first if there is none): the agent's wake channel sends it. */
  accessToken(): Promise<string>;
}

/** The login (login, GET): an access token for the API key. */
const LOGIN_PATH = '/api/v1/auth/login' satisfies keyof paths;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Retry n (0-based) waits 0.5 s, 1 s, 2 s, ... up to 8 s. */
const backoffMs = (attempt: number) => Math.min(500 * 2 ** attempt, 8000);

async function messageOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    return String((JSON.parse(text) as { message?: unknown }).message ?? text).slice(0, 500);
  } catch {
    return text.slice(0, 200) || response.statusText;
  }
}

export function service(options: ServiceOptions): Service {
  const base = options.url.replace(/\/+$/, '');
  const retries = options.retries ?? 5;
  const retried = new Set([429, ...(options.retryStatuses ?? [])]);
  let token = '';
  const login = async () => {
    if (options.token) {
      token = await options.token();
      return;
    }
    const out = await fetch(`${base}${LOGIN_PATH}`, { headers: { 'X-ApiKey': options.apiKey ?? '' } });
    if (!out.ok)
      throw new ServiceError(
        out.status,
        `login with ${options.keyName ?? 'the API key'} failed (${out.status}): ${await messageOf(out)}; check the key and the URL`,
      );
    token = ((await out.json()) as { token: string }).token;
  };
  const send = async (method: string, path: string, body: unknown, call: CallOptions): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      let why: string;
      let waitMs = backoffMs(attempt);
      call.signal?.throwIfAborted();
      try {
        if (!token) await login();
        const out = await fetch(`${base}${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${token}`,
            'Content-Type': call.text === undefined ? 'application/json' : 'text/plain; charset=utf-8',
            Accept: call.accept ?? 'application/json',
            'Accept-Encoding': 'gzip',
          },
          body: call.text ?? (body === undefined ? undefined : JSON.stringify(body)),
          signal: AbortSignal.any([
            AbortSignal.timeout(call.timeoutMs ?? 60_000),
            ...(call.signal ? [call.signal] : []),
          ]),
        });
        if (out.ok) return out;
        const message = await messageOf(out);
        if (out.status === 401 && attempt === 0) {
          token = ''; // expired: log in again
          continue;
        }
        if (out.status < 500 && !retried.has(out.status))
          throw new ServiceError(out.status, `${method} ${path} answered ${out.status}: ${message}`);
        why = `${out.status} ${message}`;
        const after = Number(out.headers.get('retry-after'));
        if (out.status === 429 && after > 0) waitMs = Math.max(waitMs, after * 1000);
      } catch (error) {
        if (error instanceof ServiceError) throw error;
        call.signal?.throwIfAborted();
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        why = `${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
      }
      if (attempt >= retries)
        throw new ServiceError(0, `${method} ${path} failed after ${attempt + 1} attempts: ${why}`);
      call.onRetry?.();
      await sleep(waitMs);
    }
  };
  return {
    async call<T>(method: string, path: string, body?: unknown, call: CallOptions = {}) {
      const out = await send(method, path, body, call);
      return (out.headers.get('content-type')?.includes('json') ? await out.json() : {}) as T;
    },
    fetch: (method, path, body, call = {}) => send(method, path, body, call),
    async accessToken() {
      if (!token) await login();
      return token;
    },
  };
}
