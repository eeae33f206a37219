import { matchRoute } from './server.ts';
import type { LocalHook } from './hook.ts';

// `npm start` listens before its tables exist: the HTTP server also fronts the bucket, which provisioning creates
// through it. Until the stack is ready (tables, bucket, bootstrap), API requests answer 503 with Retry-After instead
// of failing on missing tables, and /health says "starting"; the bucket, docs and dashboard are served meanwhile.

/** Seconds a client is asked to wait before retrying while the stack starts. */
export const STARTING_RETRY_AFTER_SECONDS = 1;

export interface StartupGate {
  /** Placed first among the local server's hooks. */
  hook: LocalHook;
  markReady(): void;
}

export function startupGate(): StartupGate {
  let ready = false;
  const hook: LocalHook = (req, res, url) => {
    if (ready) return false;
    const method = req.method ?? 'GET';
    const health = url.pathname === '/health' && (method === 'GET' || method === 'HEAD');
    if (!health && !matchRoute(method, url.pathname)) return false;
    const body = Buffer.from(
      JSON.stringify(
        health
          ? { status: 'starting' }
          : {
              message: `Service Unavailable: hawk-api is starting (creating its tables); retry in ${STARTING_RETRY_AFTER_SECONDS} s`,
            },
      ),
    );
    res.writeHead(503, {
      'content-type': 'application/json',
      'retry-after': String(STARTING_RETRY_AFTER_SECONDS),
      'cache-control': 'no-store',
      'content-length': String(body.length),
    });
    res.end(method === 'HEAD' ? undefined : body);
    return true;
  };
  return {
    hook,
    markReady: () => {
      ready = true;
    },
  };
}
