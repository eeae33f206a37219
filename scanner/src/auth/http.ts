// One HTTP exchange with the target: cookies from a tough-cookie jar out, Set-Cookie back into it.
import type { CookieJar } from 'tough-cookie';

export type TargetRequest = { method?: string; path: string; headers?: HeadersInit; body?: string };

/** What sends a request: the global fetch, or one that reaches hosts only at addresses pinned beforehand. */
export type Fetch = (url: string, init: RequestInit & { redirect: 'manual'; signal: AbortSignal }) => Promise<Response>;

export type Exchange = {
  url: string;
  status: number;
  statusText: string;
  headers: Headers;
  body: string;
  /** Status line and headers as text, what the indicator and testPath regexes are matched against. */
  head: string;
};

/** What the login and verification did, for the CLI and logs; never holds credentials or tokens. */
export type Step = { name: string; request?: string; status?: number; ok: boolean; detail: string };

const TIMEOUT_MS = 30_000;

/** Resolves a config path against app.host, keeping any base path; full URLs (another host) pass through. */
export function resolveUrl(host: string, pathOrUrl: string): string {
  return /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : host.replace(/\/+$/, '') + pathOrUrl;
}

/**
 * Sends one request without following redirects, so the Set-Cookie of a 302 login response is kept.
 * `cookieNames` limits the jar's cookies that are sent (the session cookies); empty or absent sends all.
 */
export async function exchange(
  jar: CookieJar,
  request: { method: string; url: string; headers?: HeadersInit; body?: string },
  cookieNames?: string[],
  send: Fetch = fetch,
): Promise<Exchange> {
  const headers = new Headers(request.headers);
  const cookies = (await jar.getCookies(request.url)).filter(
    (cookie) => !cookieNames?.length || cookieNames.includes(cookie.key),
  );
  if (cookies.length) {
    const sessionCookies = cookies.map((cookie) => cookie.cookieString()).join('; ');
    headers.set('cookie', [headers.get('cookie'), sessionCookies].filter(Boolean).join('; '));
  }
  let response: Response;
  try {
    response = await send(request.url, {
      method: request.method,
      headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    // The cause's code, not the error itself: undici quotes invalid header values, which may be tokens.
    const cause = (err as { cause?: { code?: string } }).cause;
    // eslint-disable-next-line preserve-caught-error -- the cause may quote a token (above)
    throw new Error(`${request.method} ${request.url} failed: ${cause?.code ?? (err as Error).name}`);
  }
  for (const setCookie of response.headers.getSetCookie()) {
    await jar.setCookie(setCookie, request.url, { ignoreError: true });
  }
  const body = await response.text();
  const statusLine = `HTTP/1.1 ${response.status} ${response.statusText}`;
  const head = [statusLine, ...[...response.headers].map(([name, value]) => `${name}: ${value}`)].join('\r\n');
  return {
    url: request.url,
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    body,
    head,
  };
}
