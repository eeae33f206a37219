// Real target applications for the login tests, on 127.0.0.1 and an ephemeral port.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const USERNAME = 'alice@example.test';
export const PASSWORD = 'S3cret-pa55:word#1';

export type TargetApp = { url: string; close(): Promise<void> };

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

async function serve(handler: Handler): Promise<TargetApp> {
  const server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    handler(request, body, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const randomId = () => randomBytes(12).toString('base64url');

function cookies(request: IncomingMessage): Map<string, string> {
  return new Map(
    (request.headers.cookie ?? '')
      .split(';')
      .filter((pair) => pair.includes('='))
      .map((pair) => pair.trim().split('=', 2) as [string, string]),
  );
}

/** The few entities the tests write, as a browser decodes them (unknown names stay; code points beyond Unicode: U+FFFD). */
const decodedAsBrowsers = (html: string) =>
  html.replace(/&#(\d+);/g, (_, n: string) => (Number(n) > 0x10ffff ? '\uFFFD' : String.fromCodePoint(Number(n))));

const loginForm = (token: string, message = '') => `<!doctype html><form method="post" action="/login">
  ${message}<input type="hidden" name="utf8" value="&#x2713;">
  <input value="${token}" type='hidden' name="authenticity_token">
  <input name="user[email]"><input type="password" name="user[password]"><input type="submit" name="commit" value="Sign in">
</form>`;

/**
 * A server-rendered app: GET /login issues a pre-session cookie and a CSRF token that changes on every load
 * (only the latest one is accepted, once); POST /login needs it, the credentials and commit=Sign in, and
 * answers 302 with a SESSIONID cookie. /dashboard and /admin need the session (else 302 to /login);
 * /admin is forbidden to this user; /rotate replaces the session id through Set-Cookie.
 */
export async function startFormApp({ tokenEntities = '' } = {}) {
  const csrfTokens = new Map<string, string>(); // pre-session id -> the latest token issued
  const sessions = new Set<string>();
  const stats = { logins: 0, rejectedCsrf: 0 };
  const app = await serve((request, body, response) => {
    const url = new URL(request.url!, 'http://target');
    const jar = cookies(request);
    const session = jar.get('SESSIONID');
    const loggedIn = session !== undefined && sessions.has(session);

    if (url.pathname === '/login' && request.method === 'GET') {
      const preSession = jar.get('pre_sid') ?? randomId();
      const token = randomId();
      // `tokenEntities`: entities written after the token, which the form then expects decoded as a browser does.
      csrfTokens.set(preSession, token + decodedAsBrowsers(tokenEntities));
      response.writeHead(200, { 'content-type': 'text/html', 'set-cookie': `pre_sid=${preSession}; Path=/; HttpOnly` });
      return response.end(loginForm(token + tokenEntities));
    }
    if (url.pathname === '/login' && request.method === 'POST') {
      const form = new URLSearchParams(body);
      const preSession = jar.get('pre_sid') ?? '';
      const expected = csrfTokens.get(preSession);
      csrfTokens.delete(preSession);
      if (
        request.headers['content-type'] !== 'application/x-www-form-urlencoded' ||
        !expected ||
        form.get('authenticity_token') !== expected
      ) {
        stats.rejectedCsrf++;
        response.writeHead(403, { 'content-type': 'text/plain' });
        return response.end('Invalid authenticity token');
      }
      if (form.get('commit') !== 'Sign in') {
        response.writeHead(400, { 'content-type': 'text/plain' });
        return response.end('missing commit');
      }
      if (form.get('user[email]') !== USERNAME || form.get('user[password]') !== PASSWORD) {
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end(loginForm(randomId(), '<p>Invalid email or password</p>'));
      }
      stats.logins++;
      const id = randomId();
      sessions.add(id);
      response.writeHead(302, { location: '/dashboard', 'set-cookie': `SESSIONID=${id}; Path=/; HttpOnly` });
      return response.end();
    }
    if (!loggedIn) {
      response.writeHead(302, { location: '/login' });
      return response.end();
    }
    if (url.pathname === '/dashboard') {
      response.writeHead(200, { 'content-type': 'text/html' });
      return response.end(`<h1>Welcome ${USERNAME}</h1><a href="/logout">Sign out</a>`);
    }
    if (url.pathname === '/admin') {
      response.writeHead(403, { 'content-type': 'text/html' });
      return response.end('<h1>Forbidden</h1>');
    }
    if (url.pathname === '/rotate') {
      sessions.delete(session!);
      const id = randomId();
      sessions.add(id);
      response.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': `SESSIONID=${id}; Path=/; HttpOnly` });
      return response.end('rotated');
    }
    response.writeHead(404);
    response.end();
  });
  return { ...app, stats, expireSessions: () => sessions.clear() };
}

/**
 * A JSON API: POST /api/login {email, password, client: "scanner"} answers
 * {data: {auth: {token}}} plus an X-Auth-Token header; a token is good for `tokenUses` requests to
 * GET /api/me, after which it answers 401. A second server (`authUrl`) shares the tokens and serves the
 * same /api/login, standing in for a login on another host.
 */
export async function startJsonApi({ tokenUses }: { tokenUses: number }) {
  const remainingUses = new Map<string, number>();
  const stats = { logins: 0, requests: 0 };
  const handler: Handler = (request, body, response) => {
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(value));
    };
    if (request.url === '/api/login' && request.method === 'POST') {
      let credentials: Record<string, unknown>;
      try {
        credentials = JSON.parse(body);
      } catch {
        return json(400, { error: 'body must be JSON' });
      }
      if (credentials.email !== USERNAME || credentials.password !== PASSWORD || credentials.client !== 'scanner') {
        return json(401, { error: 'invalid credentials' });
      }
      stats.logins++;
      const token = randomId();
      remainingUses.set(token, tokenUses);
      return json(200, { data: { auth: { token } } }, { 'x-auth-token': token });
    }
    if (request.url === '/api/me') {
      stats.requests++;
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      const uses = remainingUses.get(token) ?? 0;
      if (uses <= 0)
        return json(401, { error: 'token expired' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
      remainingUses.set(token, uses - 1);
      return json(200, { email: USERNAME });
    }
    json(404, { error: 'not found' });
  };
  const [api, auth] = await Promise.all([serve(handler), serve(handler)]);
  return {
    url: api.url,
    authUrl: auth.url,
    stats,
    close: () => Promise.all([api.close(), auth.close()]).then(() => undefined),
  };
}
