// The logged-in session a scanner sends its requests through: decorates each request with the session
// cookies or token, judges each response with the indicators, and renews the login when it has expired.
import type { AuthConfig } from './config.ts';
import { exchange, resolveUrl, type Exchange, type Fetch, type Step, type TargetRequest } from './http.ts';
import { authenticate, type SessionState } from './login.ts';
import { compilePattern } from './patterns.ts';

export type TargetResponse = Exchange & { loggedIn: boolean; retried: boolean };

export type Session = {
  /** Logs in (or joins the login already under way). */
  login(): Promise<void>;
  /**
   * Sends a request as the logged-in user. A logged-out response causes one re-login and one retry;
   * `reauthenticate: false` returns it as is (for verification requests such as testPath).
   */
  send(request: TargetRequest, options?: { reauthenticate?: boolean }): Promise<TargetResponse>;
  /** Replaces the credentials and every token of this session in a text with ***. */
  redact(text: string): string;
  /**
   * The headers a request to app.host carries in the current session (its cookies, its token), logging in first
   * if needed: for a scan engine that cannot log in by itself.
   */
  headers(): Promise<Record<string, string>>;
  /** Whether a response (status line, headers, body) shows the session logged in, by the configured indicators. */
  isLoggedIn(fullResponse: string): boolean;
};

export function createSession(
  config: AuthConfig,
  {
    onStep,
    fetch: transport,
  }: {
    onStep?: (step: Step) => void;
    /** What sends the login's and the session's requests (default: the global fetch). */
    fetch?: Fetch;
  } = {},
): Session {
  const auth = config.app.authentication;
  const loggedInIndicator = auth.loggedInIndicator === undefined ? undefined : compilePattern(auth.loggedInIndicator);
  const loggedOutIndicator =
    auth.loggedOutIndicator === undefined ? undefined : compilePattern(auth.loggedOutIndicator);
  const secrets = new Set(
    [auth.usernamePassword?.scanUsername, auth.usernamePassword?.scanPassword, auth.external?.value].filter(
      (secret): secret is string => Boolean(secret),
    ),
  );
  const redact = (text: string) => [...secrets].reduce((redacted, secret) => redacted.replaceAll(secret, '***'), text);
  const report = (step: Step) =>
    onStep?.({ ...step, request: step.request && redact(step.request), detail: redact(step.detail) });

  // A logical clock orders request sends and login completions exactly, whatever the timer resolution.
  let clock = 0;
  let lastLoginAt = -1;
  let state: SessionState | undefined;
  let loginInFlight: Promise<void> | undefined;

  // Single flight: concurrent callers share the login under way instead of starting their own.
  function login(): Promise<void> {
    loginInFlight ??= authenticate(config, report, transport)
      .then((renewed) => {
        if (renewed.token) secrets.add(renewed.token);
        state = renewed;
        lastLoginAt = ++clock;
      })
      .catch(rethrowRedacted)
      .finally(() => {
        loginInFlight = undefined;
      });
    return loginInFlight;
  }

  async function sendOnce(request: TargetRequest): Promise<{ response: TargetResponse; sentAt: number }> {
    const current = state!;
    const sentAt = ++clock;
    const headers = new Headers(request.headers);
    if (current.token && auth.tokenAuthorization) {
      const { value: header, tokenType } = auth.tokenAuthorization;
      headers.set(header, tokenType ? `${tokenType} ${current.token}` : current.token);
    }
    // Set-Cookie goes into the jar of the session the request was sent with: a late response of an
    // expired session cannot overwrite the cookies of a newer login.
    const response = await exchange(
      current.jar,
      { method: request.method ?? 'GET', url: resolveUrl(config.app.host, request.path), headers, body: request.body },
      auth.cookieAuthorization?.cookieNames,
      transport,
    ).catch(rethrowRedacted);
    return {
      response: { ...response, loggedIn: isLoggedIn(`${response.head}\r\n\r\n${response.body}`), retried: false },
      sentAt,
    };
  }

  const isLoggedIn = (fullResponse: string) =>
    indicatorsSayLoggedIn(fullResponse, loggedInIndicator, loggedOutIndicator);

  async function send(request: TargetRequest, { reauthenticate = true } = {}): Promise<TargetResponse> {
    if (loginInFlight || !state) await login();
    const { response, sentAt } = await sendOnce(request);
    // An external token cannot be renewed, so there is nothing to retry with.
    if (response.loggedIn || !reauthenticate || !auth.usernamePassword) return response;

    // ZAP's rule: only a request sent after the last successful login may trigger a new one; an older
    // request just failed with a session that has since been renewed.
    const renew = sentAt > lastLoginAt;
    report({
      name: 'logged out',
      request: `${request.method ?? 'GET'} ${response.url}`,
      status: response.status,
      ok: false,
      detail: `${renew ? 'logging in again' : 'the session was already renewed'}, then retrying once`,
    });
    if (renew) await login();
    return { ...(await sendOnce(request)).response, retried: true };
  }

  function rethrowRedacted(err: unknown): never {
    if (err instanceof Error) {
      err.message = redact(err.message);
      if (err.stack) err.stack = redact(err.stack);
    }
    throw err;
  }

  async function headers(): Promise<Record<string, string>> {
    if (loginInFlight || !state) await login();
    const current = state!;
    const names = auth.cookieAuthorization?.cookieNames;
    const cookies = (await current.jar.getCookies(config.app.host)).filter(
      (cookie) => !names?.length || names.includes(cookie.key),
    );
    const out: Record<string, string> = {};
    if (cookies.length) out.cookie = cookies.map((cookie) => cookie.cookieString()).join('; ');
    if (current.token && auth.tokenAuthorization) {
      const { value: header, tokenType } = auth.tokenAuthorization;
      out[header.toLowerCase()] = tokenType ? `${tokenType} ${current.token}` : current.token;
    }
    return out;
  }

  return { login, send, redact, headers, isLoggedIn };
}

type Indicator = ReturnType<typeof compilePattern>;

// OWASP ZAP's evaluation: a matching loggedInIndicator wins; otherwise a loggedOutIndicator decides;
// with only a loggedInIndicator, not matching it means logged out; with neither, assume logged in.
function indicatorsSayLoggedIn(fullResponse: string, loggedIn?: Indicator, loggedOut?: Indicator): boolean {
  if (loggedIn?.test(fullResponse)) return true;
  if (loggedOut) return !loggedOut.test(fullResponse);
  return !loggedIn;
}
