// Session health without a loggedOutIndicator (docs/HOSTED-SCANS.md, Login): nothing judges the engine's answers,
// so the agent checks testPath itself every HAWK_SESSION_CHECK_REQUESTS requests the engine sent, and once more at
// the end. A failed check means the session was lost: the requests since the last good check are counted as sent
// logged out, and the agent logs in again (bounded, session-relay.ts); a login that fails ends the run in ERROR
// (AUTHENTICATION). Any such stretch makes the run's verdict AUTH_DEGRADED (run-coverage.ts).
import type { SessionRelay } from './session-relay.ts';

/** Requests between two checks of testPath (HAWK_SESSION_CHECK_REQUESTS). */
export const SESSION_CHECK_REQUESTS = 50;
/** How often the proxy's count is looked at. */
const LOOK_MS = 100;

export interface SessionHealth {
  /** Stops the checks and, unless the session was given up, checks it once more (the end of the attack). */
  finish(): Promise<void>;
}

export function watchSessionHealth(
  relay: SessionRelay,
  /** The requests the engine sent so far (the proxy's count). */
  sent: () => number,
  log: (line: string) => void,
  every = Number(process.env.HAWK_SESSION_CHECK_REQUESTS) || SESSION_CHECK_REQUESTS,
): SessionHealth | undefined {
  const testSession = relay.testSession;
  if (!testSession) return undefined;
  let lastGood = 0;
  let nextAt = every;
  let checking: Promise<void> | undefined;

  const check = async (last: boolean) => {
    const at = sent();
    const verdict = await testSession().catch((error: Error) => ({ ok: false, detail: error.message }));
    if (verdict.ok) {
      lastGood = at;
      return;
    }
    log(
      `session check after ${at} requests: testPath FAIL (${verdict.detail}): the session was lost; the ${at - lastGood} requests since the last good check count as sent logged out`,
    );
    // At the end nothing more is sent: no login is needed, only the count.
    if (!last) await relay.renewLost(`testPath failed after ${at} requests`);
    const now = sent();
    relay.markUnauthenticated(now - lastGood);
    lastGood = now;
  };

  const timer = setInterval(() => {
    if (checking || relay.failure() || sent() < nextAt) return;
    nextAt = sent() + every;
    checking = check(false).finally(() => {
      checking = undefined;
    });
  }, LOOK_MS);
  timer.unref();
  return {
    async finish() {
      clearInterval(timer);
      await checking;
      if (!relay.failure() && sent() > lastGood) await check(true);
    },
  };
}
