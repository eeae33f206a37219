// The logged-in session the pinning proxy carries for an engine that cannot log in again by itself (Wapiti runs as
// one process with fixed headers): when an answer matches the configuration's loggedOutIndicator, the agent logs in
// again (and checks testPath), and the proxy goes on with the new session. Bounded: at most `maxRelogins` logins
// after the first, one at a time; a login that fails, or one more lost session past the bound, ends the relay, and
// the run ends in ERROR (AUTHENTICATION). docs/HOSTED-SCANS.md, Login.
import { runTestPath, type AuthConfig, type Session } from '../auth/index.ts';
import { compilePattern } from '../auth/patterns.ts';
import { cookiePairs, type ProxySession } from './pinning-proxy.ts';

/** Re-logins a scan may need before the agent gives up (HAWK_MAX_RELOGINS). */
export const MAX_RELOGINS = 5;

export interface SessionRelay extends ProxySession {
  /** Why the session could not be kept (the run ends in ERROR, AUTHENTICATION), once it could not. */
  failure(): string | undefined;
  relogins(): number;
  /**
   * Checks the session with testPath (session-health.ts, when nothing is watched); undefined without a testPath.
   */
  testSession?(): Promise<{ ok: boolean; detail: string }>;
  /** Logs in again (bounded, one login at a time) because `why`; false when it could not. */
  renewLost(why: string): Promise<boolean>;
  /** Requests the engine sent with a session found lost since (session-health.ts): counted as logged out. */
  markUnauthenticated(requests: number): void;
  unauthenticated(): number;
}

export async function sessionRelay(options: {
  session: Session;
  config: AuthConfig;
  log: (line: string) => void;
  /** Called once when the session is given up: the engine is stopped. */
  onFailure: (message: string) => void;
  maxRelogins?: number;
}): Promise<SessionRelay> {
  const { session, log } = options;
  const auth = options.config.app.authentication;
  const maxRelogins = options.maxRelogins ?? (Number(process.env.HAWK_MAX_RELOGINS) || MAX_RELOGINS);
  const loggedIn = auth.loggedInIndicator === undefined ? undefined : compilePattern(auth.loggedInIndicator);
  const loggedOut = auth.loggedOutIndicator === undefined ? undefined : compilePattern(auth.loggedOutIndicator);
  let headers = await session.headers();
  let generation = 0;
  let count = 0;
  let failure: string | undefined;
  let renewing: Promise<boolean> | undefined;

  const fail = (message: string) => {
    if (failure) return;
    failure = message;
    log(`session: ${message}`);
    options.onFailure(message);
  };

  let unauthenticated = 0;
  const relogin = async (why: string): Promise<boolean> => {
    if (count >= maxRelogins) {
      fail(
        `the session was lost again after ${count} re-logins (the most a scan may need, HAWK_MAX_RELOGINS): check what logs the scan user out (a logout link, a short session) and the loggedOutIndicator`,
      );
      return false;
    }
    count++;
    log(`re-login ${count}/${maxRelogins}: ${why}; logging in again`);
    try {
      await session.login();
      const testPath = auth.testPath;
      if (testPath) {
        const verdict = await runTestPath(session, testPath);
        log(`re-login ${count}: testPath ${verdict.ok ? 'ok' : 'FAIL'}: ${verdict.detail}`);
        if (!verdict.ok) {
          fail(
            `re-login ${count} did not pass testPath (${verdict.detail}); check the login configuration and credentials`,
          );
          return false;
        }
      }
      headers = await session.headers();
      generation++;
      log(`re-login ${count}: the scan goes on with the new session`);
      return true;
    } catch (error) {
      fail(`re-login ${count} failed: ${(error as Error).message}`);
      return false;
    }
  };

  const renewOnce = (why: string) =>
    (renewing ??= relogin(why).finally(() => {
      renewing = undefined;
    }));
  const testPath = auth.testPath;

  return {
    watching: loggedOut !== undefined,
    failure: () => failure,
    relogins: () => count,
    ...(testPath ? { testSession: () => runTestPath(session, testPath) } : {}),
    renewLost: (why) => (failure ? Promise.resolve(false) : renewOnce(why)),
    markUnauthenticated: (requests) => {
      unauthenticated += Math.max(0, requests);
    },
    unauthenticated: () => unauthenticated,
    current: () => ({ headers, generation }),
    // ZAP's order: a matching loggedInIndicator wins; only a loggedOutIndicator match means the session was lost
    // (not matching loggedInIndicator alone would count every public page).
    loggedOut: (response) => loggedOut !== undefined && !loggedIn?.test(response) && loggedOut.test(response),
    renew(sentWith, request) {
      if (failure) return Promise.resolve(false);
      // Sent with an older session, which was renewed since: just send it again.
      if (sentWith < generation) return Promise.resolve(true);
      return renewOnce(`the answer to ${request} matched loggedOutIndicator`);
    },
    cookiesSet(sentWith, setCookies) {
      if (sentWith !== generation || !headers.cookie) return;
      const current = new Map(cookiePairs(headers.cookie));
      let changed = false;
      for (const setCookie of setCookies) {
        const [name, value] = cookiePairs(setCookie.split(';')[0])[0] ?? [];
        if (name && current.has(name) && current.get(name) !== value) {
          current.set(name, value);
          changed = true;
        }
      }
      if (changed) headers = { ...headers, cookie: [...current].map(([n, v]) => `${n}=${v}`).join('; ') };
    },
  };
}
