import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';

// A deliberately vulnerable shop on loopback for the attack-coverage tests (docs/HOSTED-SCANS.md, Coverage): SQL
// injection (error-based), OS command injection, path traversal, CRLF injection, stored XSS, an open redirect and a
// cookie without HttpOnly, each public and again behind a FORM login, whose sessions can be made to end after a
// number of requests. All simulated, and safe: the SQL error and the command's output are made up from string
// checks, no file is read, no shell runs. It keeps its own log of every request it received.

const page = (body: string) => `<!doctype html><html><head><title>shop</title></head><body>${body}</body></html>`;

export interface LoggedRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  body: string;
  userAgent: string;
}

export interface AttackTarget {
  url: string;
  /** Every request received, in order. */
  requests: LoggedRequest[];
  /** The URLs (path and query) its pages link to: what a crawl can find. */
  linked: Set<string>;
  /** The next `count` sessions opened end after `requests` requests each (later ones last). */
  expiring: { count: number; requests: number };
  /** Pages (`/products`, ...) whose flaw was fixed, in both areas: they answer a plain page. */
  patched: Set<string>;
  /** How many more logins succeed (the credentials are refused after them). */
  loginsLeft: number;
  stop: () => Promise<void>;
}

/** The vulnerable pages, under `/` and under `/account/` (logged in). */
const PAGES = [
  'products?id=1',
  'ping?host=localhost',
  'download?file=readme.txt',
  'lang?lang=en',
  'go?url=/',
  'guestbook',
];

export async function startAttackTarget(): Promise<AttackTarget> {
  const sessions = new Set<string>();
  const remaining = new Map<string, number>();
  const csrfTokens = new Set<string>();
  const comments = { public: [] as string[], account: [] as string[] };
  const linked = new Set<string>();
  const links = (prefix: string) =>
    PAGES.map((p) => {
      linked.add(`${prefix}${p}`);
      return `<a href="${prefix}${p}">${p.split('?')[0]}</a>`;
    }).join(' ');

  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      target.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body,
        userAgent: req.headers['user-agent'] ?? '',
      });
      answer(req, body, res);
    });
  });

  const loggedIn = (req: IncomingMessage) => {
    const session = req.headers.cookie?.match(/sid=([\w-]+)/)?.[1];
    if (session === undefined || !sessions.has(session)) return false;
    const left = remaining.get(session);
    if (left !== undefined) {
      if (left <= 0) {
        sessions.delete(session);
        return false;
      }
      remaining.set(session, left - 1);
    }
    return true;
  };

  const answer = (req: IncomingMessage, body: string, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://target');
    const html = (status: number, content: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      res.end(page(content));
    };
    if (url.pathname === '/') {
      linked.add('/login');
      return html(200, `${links('/')} <a href="/login">login</a>`, { 'set-cookie': 'prefs=dark; Path=/' });
    }
    if (url.pathname === '/login') return login(req, body, res, html);
    let path = url.pathname;
    let area: 'public' | 'account' = 'public';
    if (path === '/account' || path.startsWith('/account/')) {
      if (!loggedIn(req)) return html(302, '<p>please log in</p>', { location: '/login' });
      area = 'account';
      path = path.slice('/account'.length) || '/';
      if (path === '/')
        return html(200, `<p>Signed in as alice</p>${links('/account/')}`, {
          'set-cookie': 'account_prefs=compact; Path=/account',
        });
    }
    const param = (name: string) => url.searchParams.get(name) ?? '';
    const prefix = area === 'account' ? '<p>Signed in as alice</p>' : '';
    if (target.patched.has(path)) return html(200, `${prefix}<p>fixed</p>`);
    switch (path) {
      case '/products':
        // Error-based SQL injection, simulated: a quote "breaks" the query and the database's error shows.
        if (/['"]/.test(param('id')))
          return html(
            200,
            `${prefix}<p>You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '${param('id').replace(/</g, '&lt;')}'</p>`,
          );
        return html(200, `${prefix}<p>Product ${param('id').replace(/\D/g, '')}: shoes</p>`);
      case '/ping':
        // OS command injection, simulated: a command after a separator "runs" and its output (made up) shows.
        if (/[;|&\n]\s*(env|set)\b/.test(param('host')))
          return html(200, `${prefix}<pre>PING localhost\nPATH=/usr/bin:/bin\nPWD=/srv/shop\nHOME=/srv</pre>`);
        return html(200, `${prefix}<pre>PING localhost: 1 packet received</pre>`);
      case '/download':
        // Path traversal, simulated: a file name reaching /etc/passwd "reads" it (made-up content).
        if (param('file').includes('etc/passwd'))
          return html(200, `${prefix}<pre>root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/:/bin/false</pre>`);
        return html(200, `${prefix}<pre>readme: welcome to the shop</pre>`);
      case '/lang': {
        // CRLF injection: the parameter goes into a header unchecked, so a line break in it starts a new header.
        // Node refuses line breaks in headers; the injected lines are set as the headers they would have made.
        // Decoded once more, as such code often does, so an encoded line break works too.
        const lang = /%0a/i.test(param('lang')) ? decodeURIComponent(param('lang')) : param('lang');
        const [value, ...injected] = lang.split(/\r?\n/);
        const headers: Record<string, string> = { 'x-language': value.replace(/[^\w-]/g, '') };
        for (const line of injected) {
          const [name, ...rest] = line.split(':');
          if (/^[\w-]+$/.test(name.trim())) headers[name.trim().toLowerCase()] = rest.join(':').trim();
        }
        return html(200, `${prefix}<p>language set</p>`, headers);
      }
      case '/go':
        // Open redirect: wherever the parameter says (printable ASCII only: a header carries nothing else).
        return html(302, '<p>redirecting</p>', { location: param('url').replace(/[^\x21-\x7e]/g, '') || '/' });
      case '/guestbook': {
        // Stored XSS: comments are kept and shown unescaped on the guestbook (the form's own answer does not
        // repeat them: only a stored-XSS check finds this one).
        const stored = comments[area];
        if (req.method === 'POST') {
          stored.push(new URLSearchParams(body).get('comment') ?? '');
          if (stored.length > 2000) stored.shift();
          return html(200, `${prefix}<p>Thanks, your comment was saved.</p>`);
        }
        const action = area === 'account' ? '/account/guestbook' : '/guestbook';
        return html(
          200,
          `${prefix}<form method="post" action="${action}"><input name="comment" value="hi"><button>post</button></form><ul>${stored.map((c) => `<li>${c}</li>`).join('')}</ul>`,
        );
      }
    }
    html(404, '<p>not found</p>');
  };

  const login = (
    req: IncomingMessage,
    body: string,
    res: ServerResponse,
    html: (status: number, content: string, headers?: Record<string, string>) => void,
  ) => {
    if (req.method !== 'POST') {
      const token = randomUUID();
      csrfTokens.add(token);
      return html(
        200,
        `<form method="post" action="/login"><input name="username"><input name="password" type="password"><input type="hidden" name="csrf" value="${token}"><button>login</button></form>`,
      );
    }
    const form = new URLSearchParams(body);
    if (
      target.loginsLeft <= 0 ||
      form.get('username') !== 'alice' ||
      form.get('password') !== 's3cret' ||
      !csrfTokens.has(form.get('csrf') ?? '')
    )
      return html(401, '<p>login failed</p>');
    target.loginsLeft--;
    const sid = randomUUID();
    sessions.add(sid);
    if (target.expiring.count > 0) {
      target.expiring.count--;
      remaining.set(sid, target.expiring.requests);
    }
    res.writeHead(302, { location: '/account', 'set-cookie': `sid=${sid}; Path=/; HttpOnly` });
    res.end();
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const target: AttackTarget = {
    url: `http://127.0.0.1:${port}/`,
    requests: [],
    linked,
    expiring: { count: 0, requests: 0 },
    patched: new Set(),
    loginsLeft: Infinity,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return target;
}
