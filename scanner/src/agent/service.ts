// The agent's calls to the service: outbound only, with an access token from the API key (renewed on 401, or a
// token source for an agent the service embeds), retrying network errors, 5xx and 429 with backoff.

export class ServiceError extends Error {
  override name = 'ServiceError';
  constructor(
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
  retries?: number;
}

export interface CallOptions {
  text?: string;
  timeoutMs?: number;
  /** Ends the call (and its retries) at once: it rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface Service {
  call<T>(method: string, path: string, body?: unknown, options?: CallOptions): Promise<T>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  let token = '';
  const login = async () => {
    if (options.token) {
      token = await options.token();
      return;
    }
    const out = await fetch(`${base}/api/v1/auth/login`, { headers: { 'X-ApiKey': options.apiKey ?? '' } });
    if (!out.ok)
      throw new ServiceError(out.status, `login with the API key failed (${out.status}): ${await messageOf(out)}`);
    token = ((await out.json()) as { token: string }).token;
  };
  return {
    async call<T>(method: string, path: string, body?: unknown, call: CallOptions = {}) {
      for (let attempt = 0; ; attempt++) {
        let why: string;
        call.signal?.throwIfAborted();
        try {
          if (!token) await login();
          const out = await fetch(`${base}${path}`, {
            method,
            headers: {
              Authorization: `Bearer ${token}`,
              'Content-Type': call.text === undefined ? 'application/json' : 'text/plain; charset=utf-8',
              Accept: 'application/json',
            },
            body: call.text ?? (body === undefined ? undefined : JSON.stringify(body)),
            signal: AbortSignal.any([
              AbortSignal.timeout(call.timeoutMs ?? 60_000),
              ...(call.signal ? [call.signal] : []),
            ]),
          });
          if (out.ok) return (out.headers.get('content-type')?.includes('json') ? await out.json() : {}) as T;
          const message = await messageOf(out);
          if (out.status === 401 && attempt === 0) {
            token = '';
            continue;
          }
          if (out.status < 500 && out.status !== 429)
            throw new ServiceError(out.status, `${method} ${path}: ${out.status} ${message}`);
          why = `${out.status} ${message}`;
        } catch (error) {
          if (error instanceof ServiceError) throw error;
          call.signal?.throwIfAborted();
          const cause = (error as { cause?: { code?: string } }).cause;
          why = `${(error as Error).message}${cause?.code ? ` (${cause.code})` : ''}`;
        }
        if (attempt >= retries)
          throw new ServiceError(0, `${method} ${path} failed after ${attempt + 1} attempts: ${why}`);
        await sleep(Math.min(500 * 2 ** attempt, 8000));
      }
    },
  };
}
