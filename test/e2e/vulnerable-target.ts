import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';

// A deliberately vulnerable web application on loopback for the hosted-scan tests: a reflected XSS in a query
// parameter, a cookie without flags, and a page behind a FORM login with an anti-CSRF field whose own reflected
// XSS only a logged-in scan can reach. Its sessions can be made to expire after a number of requests. Given a
// certificate, it answers over HTTPS.

const page = (body: string) => `<!doctype html><html><head><title>shop</title></head><body>${body}</body></html>`;

export interface VulnerableTarget {
  url: string;
  server: Server;
  /** Every request received, as `METHOD /path?query`. */
  requests: string[];
  /** Each answer waits this long (ms): a scan that lasts long enough to be stopped or cut short. */
  delayMs: number;
  /** The next `count` sessions opened expire after `requests` requests each (later ones last). */
  expiring: { count: number; requests: number };
  stop: () => Promise<void>;
}

export async function startVulnerableTarget(tls?: { key: string; cert: string }): Promise<VulnerableTarget> {
  const sessions = new Set<string>();
  /** Requests each expiring session may still carry. */
  const remaining = new Map<string, number>();
  const csrfTokens = new Set<string>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    target.requests.push(`${req.method} ${req.url}`);
    if (target.delayMs) setTimeout(() => answer(req, res), target.delayMs);
    else answer(req, res);
  };
  const server: Server = tls ? createHttpsServer(tls, handle) : createServer(handle);
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://target');
    const cookie = req.headers.cookie ?? '';
    const session = cookie.match(/sid=([\w-]+)/)?.[1];
    const left = session === undefined ? undefined : remaining.get(session);
    if (left !== undefined) {
      if (left <= 0) sessions.delete(session!);
      remaining.set(session!, left - 1);
    }
    const loggedIn = session !== undefined && sessions.has(session);
    const html = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      res.end(page(body));
    };
    if (url.pathname === '/') {
      return html(200, '<a href="/search?q=shoes">search</a> <a href="/login">login</a>', {
        'set-cookie': 'tracking=abc123; Path=/',
      });
    }
    if (url.pathname === '/search') return html(200, `<p>Results for ${url.searchParams.get('q') ?? ''}</p>`);
    if (url.pathname === '/login' && req.method === 'GET') {
      const token = randomUUID();
      csrfTokens.add(token);
      return html(
        200,
        `<form method="post" action="/login"><input name="username"><input name="password" type="password"><input type="hidden" name="csrf" value="${token}"><button>login</button></form>`,
      );
    }
    if (url.pathname === '/login' && req.method === 'POST') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        if (
          form.get('username') !== 'alice' ||
          form.get('password') !== 's3cret' ||
          !csrfTokens.has(form.get('csrf') ?? '')
        )
          return html(401, '<p>login failed</p>');
        const sid = randomUUID();
        sessions.add(sid);
        if (target.expiring.count > 0) {
          target.expiring.count--;
          remaining.set(sid, target.expiring.requests);
        }
        res.writeHead(302, { location: '/account', 'set-cookie': `sid=${sid}; Path=/; HttpOnly` });
        res.end();
      });
      return;
    }
    if (url.pathname.startsWith('/account')) {
      if (!loggedIn) return html(302, '<p>please log in</p>', { location: '/login' });
      if (url.pathname === '/account/notes')
        return html(200, `<p>Signed in as alice</p><p>Note: ${url.searchParams.get('note') ?? ''}</p>`);
      return html(200, '<p>Signed in as alice</p><a href="/account/notes?note=hello">notes</a>');
    }
    html(404, '<p>not found</p>');
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const target: VulnerableTarget = {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/`,
    server,
    requests: [],
    delayMs: 0,
    expiring: { count: 0, requests: 0 },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return target;
}
