// Loopback targets for the profile tests (docs/PROFILE-SCANS.md): one per classification, and hostile ones.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const USERNAME = 'alice@example.test';
export const PASSWORD = 'S3cret-pa55:word#1';

export type Target = { url: string; requests: string[]; close(): Promise<void> };
type Handler = (request: IncomingMessage, body: string, response: ServerResponse, url: URL) => void;

export async function serve(handler: Handler): Promise<Target> {
  const requests: string[] = [];
  const server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const url = new URL(request.url!, 'http://target');
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    handler(request, body, response, url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const token = () => randomBytes(16).toString('base64url');
const html = (response: ServerResponse, body: string, headers: Record<string, string | string[]> = {}) =>
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const cookie = (request: IncomingMessage, name: string) =>
  (request.headers.cookie ?? '')
    .split(';')
    .map((pair) => pair.trim().split('='))
    .find(([key]) => key === name)?.[1];
const bearer = (request: IncomingMessage) => /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];

/** The API's description, at a path no well-known list has, linked from the index page. */
export const API_DESCRIPTION_PATH = '/docs/v2/orders-api.json';

/**
 * An API: an HTML index linking its OpenAPI description (a non-default path), a JSON login answering
 * `{data: {token}}`, and bearer-protected operations that answer 401 with WWW-Authenticate without one. Its
 * description leaves out the `{id}` parameter of /api/orders/{id}, which the hosted-description validator refuses;
 * `validDescription` declares it.
 */
export function startApiTarget({ validDescription = false } = {}) {
  const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'integer' } };
  const tokens = new Set<string>();
  const description = {
    openapi: '3.0.3',
    info: { title: 'Orders', version: '2' },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Credentials: {
          type: 'object',
          properties: { email: { type: 'string' }, password: { type: 'string', format: 'password' } },
        },
        Session: {
          type: 'object',
          properties: { data: { type: 'object', properties: { token: { type: 'string' } } } },
        },
      },
    },
    paths: {
      '/api/login': {
        post: {
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Credentials' } } } },
          responses: {
            '200': {
              description: 'signed in',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Session' } } },
            },
          },
        },
      },
      '/api/orders': { get: { security: [{ bearerAuth: [] }], responses: { '200': { description: 'orders' } } } },
      '/api/orders/{id}': {
        get: {
          ...(validDescription ? { parameters: [idParameter] } : {}),
          responses: { '200': { description: 'an order' } },
        },
      },
    },
  };
  return serve((request, body, response, url) => {
    if (url.pathname === '/')
      return html(
        response,
        `<!doctype html><title>Orders API</title><h1>Orders API</h1><p>Read the <a href="${API_DESCRIPTION_PATH}">API description</a>.</p>`,
      );
    if (url.pathname === API_DESCRIPTION_PATH) return json(response, 200, description);
    if (url.pathname === '/api/login' && request.method === 'POST') {
      const credentials = JSON.parse(body || '{}') as { email?: string; password?: string };
      if (credentials.email !== USERNAME || credentials.password !== PASSWORD)
        return json(response, 401, { error: 'bad credentials' });
      const issued = token();
      tokens.add(issued);
      return json(response, 200, { data: { token: issued } });
    }
    if (url.pathname.startsWith('/api/orders')) {
      if (!tokens.has(bearer(request) ?? ''))
        return json(response, 401, { error: 'sign in' }, { 'www-authenticate': 'Bearer realm="orders"' });
      return json(response, 200, [{ id: 1, total: 12 }]);
    }
    json(response, 404, { error: 'not found' });
  });
}

/**
 * A server-rendered site: public pages, a FORM login with an anti-CSRF field, /account behind a session, and behind
 * it /account/notes, which reflects its `note` unescaped.
 */
export function startFormTarget() {
  const csrf = new Map<string, string>();
  const sessions = new Set<string>();
  return serve((request, body, response, url) => {
    const page = (content: string) =>
      html(
        response,
        `<!doctype html><nav><a href="/">Home</a> <a href="/products?page=1">Products</a> <a href="/account">Account</a> <a href="/login">Sign in</a></nav>${content}`,
      );
    if (url.pathname === '/') return page('<h1>Welcome to the shop</h1><p>Fresh products every day.</p>');
    if (url.pathname === '/products') return page(`<h1>Products, page ${Number(url.searchParams.get('page'))}</h1>`);
    // The session cookie exists before the login (as in Rails): the login replaces its value.
    if (url.pathname === '/login' && request.method === 'GET') {
      const pre = cookie(request, 'shop_session') ?? token();
      const issued = token();
      csrf.set(pre, issued);
      response.setHeader('set-cookie', `shop_session=${pre}; Path=/; HttpOnly; SameSite=Lax`);
      return page(`<form method="post" action="/session">
        <input type="hidden" name="csrf_token" value="${issued}">
        <input type="email" name="email"><input type="password" name="pass">
        <input type="submit" name="commit" value="Sign in"></form>`);
    }
    if (url.pathname === '/session' && request.method === 'POST') {
      const form = new URLSearchParams(body);
      const pre = cookie(request, 'shop_session') ?? '';
      if (!csrf.get(pre) || form.get('csrf_token') !== csrf.get(pre)) return response.writeHead(403).end('bad token');
      if (form.get('email') !== USERNAME || form.get('pass') !== PASSWORD)
        return response.writeHead(302, { location: '/login' }).end();
      const session = token();
      sessions.add(session);
      return response
        .writeHead(302, { location: '/account', 'set-cookie': `shop_session=${session}; Path=/; HttpOnly` })
        .end();
    }
    if (url.pathname === '/account' || url.pathname === '/account/notes') {
      if (!sessions.has(cookie(request, 'shop_session') ?? ''))
        return response.writeHead(302, { location: '/login' }).end();
      // A reflected XSS that only a logged-in scan reaches (test/e2e/profile-login-scan.test.ts).
      if (url.pathname === '/account/notes') return page(`<h1>Notes</h1><p>Note: ${url.searchParams.get('note')}</p>`);
      return page('<h1>Your account</h1><a href="/account/notes?note=hello">Your notes</a>');
    }
    response.writeHead(404).end();
  });
}

const SPA_APP_SCRIPT = `(function(){
  var t = sessionStorage.getItem("t");
  function signIn(u, p) {
    return fetch("/api/auth/login", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: u, password: p }) }).then(function (r) { return r.json(); })
      .then(function (d) { t = d.accessToken; sessionStorage.setItem("t", t); });
  }
  function profile() { return fetch("/api/profile", { headers: { Authorization: "Bearer " + t } }); }
  window.app = { signIn: signIn, profile: profile };
})();`;

/** A single-page app: an empty shell, a vendor and an app bundle; the bundle logs in with JSON and sends a bearer token. */
export function startSpaTarget() {
  const tokens = new Set<string>();
  return serve((request, body, response, url) => {
    if (url.pathname === '/' || url.pathname === '/index.html')
      return html(
        response,
        `<!doctype html><html><head><title>Shop</title><script src="/assets/vendor-3f2a1b9c.js" defer></script><script src="/assets/app-9c8d7e6f.js" defer></script></head><body><div id="root"></div></body></html>`,
      );
    if (url.pathname === '/assets/vendor-3f2a1b9c.js')
      return response.writeHead(200, { 'content-type': 'text/javascript' }).end('/* a framework */ var React = {};');
    if (url.pathname === '/assets/app-9c8d7e6f.js')
      return response.writeHead(200, { 'content-type': 'text/javascript' }).end(SPA_APP_SCRIPT);
    if (url.pathname === '/api/auth/login' && request.method === 'POST') {
      const credentials = JSON.parse(body || '{}') as { username?: string; password?: string };
      if (credentials.username !== USERNAME || credentials.password !== PASSWORD)
        return json(response, 401, { error: 'bad credentials' });
      const issued = token();
      tokens.add(issued);
      return json(response, 200, { accessToken: issued });
    }
    if (url.pathname === '/api/profile')
      return tokens.has(bearer(request) ?? '')
        ? json(response, 200, { name: 'Alice' })
        : json(response, 401, { error: 'unauthorized' });
    json(response, 404, { error: 'not found' });
  });
}

/** A static site: pages and files with validators (ETag, Last-Modified), no forms, no cookies; robots keeps out of /drafts. */
export function startStaticTarget() {
  const file = (response: ServerResponse, type: string, body: string) =>
    response
      .writeHead(200, {
        'content-type': type,
        etag: `"${body.length}"`,
        'last-modified': 'Mon, 02 Nov 2026 10:00:00 GMT',
      })
      .end(body);
  const nav = '<a href="/">Home</a> <a href="/about.html">About</a> <a href="/drafts/next.html">Next</a>';
  return serve((request, body, response, url) => {
    switch (url.pathname) {
      case '/robots.txt':
        return file(response, 'text/plain', 'User-agent: *\nDisallow: /drafts/\n');
      case '/':
        return file(
          response,
          'text/html',
          `<!doctype html><link rel="stylesheet" href="/style.css"><h1>Jane's recipes</h1><img src="/logo.png">${nav}<a href="/recipes/bread.html">Bread</a>`,
        );
      case '/about.html':
        return file(response, 'text/html', `<!doctype html><h1>About</h1>${nav}`);
      case '/recipes/bread.html':
        return file(response, 'text/html', `<!doctype html><h1>Bread</h1>${nav}`);
      case '/style.css':
        return file(response, 'text/css', 'h1 { color: teal }');
      default:
        response.writeHead(404).end();
    }
  });
}

/**
 * Hostile: the index links a 5 MB "OpenAPI" document, a deeply nested one, a redirect loop, a slow drip and
 * another origin.
 */
export function startHostileTarget(otherOrigin: string) {
  return serve((request, body, response, url) => {
    switch (url.pathname) {
      case '/':
        return html(
          response,
          `<!doctype html><a href="/specs/huge-openapi.json">huge</a> <a href="/specs/nested-openapi.json">nested</a>
           <a href="/loop/a">loop</a> <a href="/slow">slow</a> <a href="${otherOrigin}/elsewhere">elsewhere</a>
           <a href="http://169.254.169.254/latest/meta-data/">metadata</a>`,
        );
      case '/specs/huge-openapi.json': {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"openapi":"3.0.0","paths":{');
        const chunk = `"/p${'x'.repeat(1000)}":{},`;
        for (let i = 0; i < 5000; i++) response.write(chunk.replace('/p', `/p${i}`));
        return response.end('"/":{}}}');
      }
      case '/specs/nested-openapi.json':
        return response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(`{"openapi":"3.0.0","paths":{"/":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);
      case '/loop/a':
        return response.writeHead(302, { location: '/loop/b' }).end();
      case '/loop/b':
        return response.writeHead(302, { location: '/loop/a' }).end();
      case '/slow': {
        response.writeHead(200, { 'content-type': 'text/html' });
        const drip = setInterval(() => response.write('<p>.'), 100);
        response.on('close', () => clearInterval(drip));
        return;
      }
      default:
        response.writeHead(404).end();
    }
  });
}

/** A site whose index links 10,000 pages. */
export function startManyLinksTarget() {
  return serve((request, body, response, url) => {
    if (url.pathname === '/')
      return html(
        response,
        `<!doctype html>${Array.from({ length: 10_000 }, (_, i) => `<a href="/p/${i}">${i}</a>`).join('')}`,
      );
    if (url.pathname.startsWith('/p/'))
      return html(response, `<!doctype html><p>page ${url.pathname}</p><a href="/">home</a>`);
    response.writeHead(404).end();
  });
}
