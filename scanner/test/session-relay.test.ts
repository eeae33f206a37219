import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentVariables, createSession, loadConfigText } from '../src/auth/index.ts';
import { startPinningProxy, type PinningProxy } from '../src/agent/pinning-proxy.ts';
import { sessionRelay } from '../src/agent/session-relay.ts';
import { pinnedFetch } from '../src/net/pinned-fetch.ts';
import { pinnedAddress } from '../src/net/addresses.ts';

// The pinning proxy carrying the agent's logged-in session for the engine (docs/HOSTED-SCANS.md, Login): it adds
// the session to each request, and when an answer matches loggedOutIndicator the agent logs in again (one login
// at a time, a bounded number of times) and the request goes once more. The target is named scan.example.test,
// which does not resolve: the login reaches it only at the pinned address.

/** A target whose sessions expire after `sessionRequests` requests; `/private` needs a session. */
const state = {
  sessionRequests: 1000,
  logins: 0,
  refuseLogins: false,
  seen: [] as string[],
  encodings: [] as string[],
};
let target: Server;
let port: number;
const sessions = new Map<string, number>();
beforeAll(async () => {
  target = createServer((req, res) => {
    state.seen.push(`${req.method} ${req.url} cookie=${req.headers.cookie ?? ''}`);
    state.encodings.push(req.headers['accept-encoding'] ?? '');
    const sid = req.headers.cookie?.match(/sid=([\w-]*)/)?.[1] ?? '';
    if (req.url === '/login' && req.method === 'POST') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        state.logins++;
        if (state.refuseLogins || new URLSearchParams(body).get('password') !== 'pw') {
          res.writeHead(401).end('no');
          return;
        }
        const fresh = `s${state.logins}`;
        sessions.set(fresh, 0);
        res.writeHead(302, { location: '/private', 'set-cookie': `sid=${fresh}; Path=/` }).end();
      });
      return;
    }
    const used = sessions.get(sid);
    if (used !== undefined) sessions.set(sid, used + 1);
    const live = used !== undefined && used < state.sessionRequests;
    if (req.url === '/rotate' && live) {
      sessions.set(`${sid}r`, 0);
      res.writeHead(200, { 'set-cookie': `sid=${sid}r; Path=/` }).end('rotated');
      return;
    }
    if (req.url?.startsWith('/private')) {
      if (!live) res.writeHead(302, { location: '/login' }).end('gone');
      else res.writeHead(200, { 'content-type': 'text/html' }).end(`Signed in with ${sid}`);
      return;
    }
    res.end(`public page; ${req.headers.cookie ?? 'no cookie'}`);
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  port = (target.address() as AddressInfo).port;
});
afterAll(async () => {
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
});
beforeEach(() => {
  Object.assign(state, { sessionRequests: 1000, logins: 0, refuseLogins: false, seen: [], encodings: [] });
  sessions.clear();
});

const host = () => `http://scan.example.test:${port}`;
const configText = (extra = '') => `app:
  applicationId: 8c7f3a52-0d4e-4b1a-9f6e-2a5b7c9d1e3f
  env: Test
  host: ${host()}
  authentication:
    loggedInIndicator: "Signed in"
    loggedOutIndicator: "location: /login"
    usernamePassword:
      type: FORM
      loginPath: /login
      usernameField: user
      passwordField: password
      scanUsername: alice
      scanPassword: pw
    cookieAuthorization:
      cookieNames: [sid]
${extra}`;

/** The pieces the agent puts together: the session through the pinned fetch, the relay, the proxy. */
async function carried(options: { maxRelogins?: number; extra?: string; unwatched?: boolean } = {}) {
  const text = configText(options.extra);
  const loaded = loadConfigText(
    options.unwatched ? text.replace(/^ *loggedOutIndicator:.*\n/m, '') : text,
    {},
    agentVariables([], {}),
  );
  if (!loaded.config) throw new Error(JSON.stringify(loaded.errors));
  const lines: string[] = [];
  const failures: string[] = [];
  const transport = pinnedFetch(async (hostname) =>
    hostname === 'scan.example.test' ? '127.0.0.1' : pinnedAddress(hostname, { allowPrivate: false }),
  );
  const session = createSession(loaded.config, { fetch: transport });
  await session.login();
  const relay = await sessionRelay({
    session,
    config: loaded.config,
    log: (line) => lines.push(line),
    onFailure: (message) => failures.push(message),
    maxRelogins: options.maxRelogins,
  });
  const proxy = await startPinningProxy(new URL(host()), '127.0.0.1', (line) => lines.push(line));
  proxy.carry(relay);
  return { relay, proxy, lines, failures };
}

function viaProxy(proxy: PinningProxy, path: string, headers: Record<string, string> = {}, body?: string) {
  const { port: proxyPort } = new URL(proxy.url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(proxyPort),
        method: body === undefined ? 'GET' : 'POST',
        path: `${host()}${path}`,
        headers,
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the proxy carrying the session', () => {
  it('logs in at the pinned address and adds the session cookie to the engine’s requests, keeping its other cookies', async () => {
    const { proxy, relay } = await carried();
    try {
      expect(state.logins).toBe(1);
      const out = await viaProxy(proxy, '/', { cookie: 'tracking=1; sid=stale' });
      expect(out.body).toBe('public page; tracking=1; sid=s1');
      expect((await viaProxy(proxy, '/private')).body).toBe('Signed in with s1');
      expect(relay.relogins()).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('logs in again when an answer matches loggedOutIndicator and sends the request once more, body included', async () => {
    const { proxy, relay, lines } = await carried();
    try {
      state.sessionRequests = 2;
      expect((await viaProxy(proxy, '/private?a=1')).body).toBe('Signed in with s1');
      expect((await viaProxy(proxy, '/private?a=2')).body).toBe('Signed in with s1');
      const third = await viaProxy(proxy, '/private?a=3', { 'content-type': 'text/plain' }, 'payload');
      expect(third).toEqual({ status: 200, body: 'Signed in with s2' });
      expect(state.logins).toBe(2);
      expect(state.seen.filter((line) => line.startsWith('POST /private?a=3'))).toEqual([
        'POST /private?a=3 cookie=sid=s1',
        'POST /private?a=3 cookie=sid=s2',
      ]);
      expect(relay.relogins()).toBe(1);
      expect(lines).toContain(
        're-login 1/5: the answer to POST /private?a=3 matched loggedOutIndicator; logging in again',
      );
      expect(lines).toContain('re-login 1: the scan goes on with the new session');
    } finally {
      await proxy.close();
    }
  });

  it('concurrent requests that lose the session together log in once', async () => {
    const { proxy, relay } = await carried();
    try {
      expect((await viaProxy(proxy, '/private')).body).toBe('Signed in with s1');
      sessions.set('s1', 10_000); // s1 is expired; later sessions last
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => viaProxy(proxy, `/private?n=${i}`)));
      expect(answers.map((answer) => answer.body)).toEqual(Array(12).fill('Signed in with s2'));
      expect(state.logins).toBe(2);
      expect(relay.relogins()).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('gives up after the bound of re-logins, once, and the engine is told to stop', async () => {
    const { proxy, relay, failures } = await carried({ maxRelogins: 2 });
    try {
      state.sessionRequests = 0;
      for (let i = 0; i < 4; i++) await viaProxy(proxy, `/private?n=${i}`);
      expect(state.logins).toBe(3);
      expect(failures).toEqual([expect.stringMatching(/the session was lost again after 2 re-logins/)]);
      expect(relay.failure()).toBe(failures[0]);
      // Given up: answers pass as they are, with no more logins.
      expect((await viaProxy(proxy, '/private')).status).toBe(302);
      expect(state.logins).toBe(3);
    } finally {
      await proxy.close();
    }
  });

  it('gives up when the re-login is refused, or does not pass testPath', async () => {
    const { proxy, failures } = await carried();
    try {
      sessions.set('s1', 10_000);
      state.refuseLogins = true;
      expect((await viaProxy(proxy, '/private')).status).toBe(302);
      expect(failures).toEqual([expect.stringMatching(/^re-login 1 failed: login failed: .*answered 401/)]);
      expect(failures[0]).not.toContain('pw');
    } finally {
      await proxy.close();
    }
    state.refuseLogins = false;
    const withTestPath = await carried({
      extra: '    testPath: { path: /private, type: BODY, success: "with s3$" }\n',
    });
    try {
      // Its session expires; the next login's does not pass testPath (which expects the first session).
      sessions.set(withTestPath.relay.current().headers.cookie.replace('sid=', ''), 10_000);
      expect((await viaProxy(withTestPath.proxy, '/private')).status).toBe(302);
      expect(withTestPath.failures).toEqual([expect.stringMatching(/^re-login 1 did not pass testPath/)]);
    } finally {
      await withTestPath.proxy.close();
    }
  });

  it('without loggedOutIndicator streams requests and answers through with the session, and follows a rotated cookie', async () => {
    const { proxy, relay } = await carried({ unwatched: true });
    try {
      expect(relay.watching).toBe(false);
      state.sessionRequests = 3;
      const posted = await viaProxy(proxy, '/private?b=1', { 'content-type': 'text/plain' }, 'payload');
      expect(posted).toEqual({ status: 200, body: 'Signed in with s1' });
      // Nothing is judged, so the engine's own encodings are asked for (a judged answer is asked for uncompressed).
      await viaProxy(proxy, '/', { 'accept-encoding': 'gzip' });
      expect(state.encodings.at(-1)).toBe('gzip');
      expect((await viaProxy(proxy, '/rotate')).body).toBe('rotated');
      expect((await viaProxy(proxy, '/private?b=2')).body).toBe('Signed in with s1r');
      // A lost session is not noticed: the answer goes to the engine as it came, and no login follows.
      state.sessionRequests = 0;
      expect(await viaProxy(proxy, '/private?b=3')).toEqual({ status: 302, body: 'gone' });
      expect(state.logins).toBe(1);
      expect(state.seen.filter((line) => line.startsWith('POST /private?b=1'))).toEqual([
        'POST /private?b=1 cookie=sid=s1',
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('follows a session cookie the target rotates on an answer', async () => {
    const { proxy } = await carried();
    try {
      expect((await viaProxy(proxy, '/rotate')).body).toBe('rotated');
      expect((await viaProxy(proxy, '/private')).body).toBe('Signed in with s1r');
    } finally {
      await proxy.close();
    }
  });

  it('refuses a login host that resolves to a private address, saying why', async () => {
    const loaded = loadConfigText(
      configText().replace('loginPath: /login', 'loginPath: http://localhost:9/login'),
      {},
      agentVariables([], {}),
    );
    const session = createSession(loaded.config!, {
      fetch: pinnedFetch(async (hostname) => pinnedAddress(hostname, { allowPrivate: false })),
    });
    await expect(session.login()).rejects.toThrow(/localhost resolves to .*loopback, private/);
  });
});

describe('the configuration’s regexes', () => {
  it('are RE2 patterns: no lookarounds or backreferences, matched in linear time', async () => {
    const loaded = loadConfigText(
      configText().replace('"location: /login"', '"location: (?!/home)"'),
      {},
      agentVariables([], {}),
    );
    expect(loaded.errors).toEqual([
      {
        path: 'app.authentication.loggedOutIndicator',
        message: expect.stringContaining('without lookarounds or backreferences'),
      },
    ]);
    // A backtracking engine takes 2^40 steps on this; RE2 a few dozen.
    const { relay, proxy } = await carried();
    await proxy.close();
    const evil = loadConfigText(configText().replace('"location: /login"', '"^(a+)+$"'), {}, agentVariables([], {}));
    const evilRelay = await sessionRelay({
      session: createSession(evil.config!, {
        fetch: pinnedFetch(async () => '127.0.0.1'),
      }),
      config: evil.config!,
      log: () => undefined,
      onFailure: () => undefined,
    });
    expect(evilRelay.loggedOut(`${'a'.repeat(40)}!`)).toBe(false);
    expect(evilRelay.loggedOut('aaaa')).toBe(true);
    expect(relay.loggedOut('HTTP/1.1 302 Found\r\nlocation: /login\r\n\r\n')).toBe(true);
    expect(relay.loggedOut('HTTP/1.1 200 OK\r\n\r\nSigned in; location: /login')).toBe(false);
  });
});
