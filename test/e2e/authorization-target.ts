import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';

// A shop on loopback for the authorization phase's tests (docs/SCANNER-AUTH.md, Authorization testing), with two
// users: alice (an admin) and bob. Its API has one broken object level check (any logged-in user reads any order),
// one correct one (an invoice only for its owner), one broken function level check (the admin's user list answers
// every logged-in user), a public product and an unsafe function (cancelling an order, a POST form on alice's page).
// It keeps its own log of each request: who sent it (the session's user, or nobody) and what. `patched` fixes the
// broken checks it names (`/api/orders`: an order only for its owner), as a deploy would.

const USERS: Record<string, { password: string; role: 'admin' | 'user'; id: number; email: string }> = {
  alice: { password: 'alice-pw', role: 'admin', id: 101, email: 'alice@shop.test' },
  bob: { password: 'bob-pw', role: 'user', id: 102, email: 'bob@shop.test' },
};
const ORDERS = { 1001: 'alice', 1002: 'bob' } as Record<string, string>;
const INVOICES = { 2001: 'alice', 2002: 'bob' } as Record<string, string>;

export interface AuthorizationTargetRequest {
  method: string;
  url: string;
  /** The session's user, '' without one. */
  user: string;
}

const page = (body: string) => `<!doctype html><html><head><title>shop</title></head><body>${body}</body></html>`;

export async function startAuthorizationTarget() {
  const sessions = new Map<string, string>();
  const requests: AuthorizationTargetRequest[] = [];
  const patched = new Set<string>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const sid = /\bsid=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
      const user = (sid && sessions.get(sid)) || '';
      const url = new URL(req.url ?? '/', 'http://shop');
      requests.push({ method: req.method ?? '', url: `${url.pathname}${url.search}`, user });
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const html = (text: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(page(text));
      if (req.method === 'POST' && url.pathname === '/login') {
        const form = new URLSearchParams(body);
        const name = form.get('username') ?? '';
        if (USERS[name]?.password !== form.get('password')) return void res.writeHead(401).end();
        const id = randomUUID();
        sessions.set(id, name);
        return void res.writeHead(302, { location: '/account', 'set-cookie': `sid=${id}; Path=/` }).end();
      }
      if (url.pathname === '/login')
        return html('<form method="post" action="/login"><input name="username"><input name="password"></form>');
      if (url.pathname === '/' || url.pathname === '/index.html')
        return html('<a href="/login">Sign in</a> <a href="/api/products/5005">Our teapot</a>');
      if (url.pathname === '/account') {
        if (!user) return html('<p>Hello</p><a href="/login">Sign in</a>');
        const mine = (table: Record<string, string>) => Object.keys(table).filter((id) => table[id] === user);
        return html(
          `<p>Signed in as ${user}</p>` +
            mine(ORDERS)
              .map(
                (id) =>
                  `<a href="/api/orders/${id}">order ${id}</a>` +
                  `<form method="post" action="/api/orders/${id}/cancel"><input name="reason" value="changed my mind"><input type="submit"></form>`,
              )
              .join('') +
            mine(INVOICES)
              .map((id) => `<a href="/api/invoices/${id}">invoice ${id}</a>`)
              .join('') +
            (USERS[user].role === 'admin' ? '<a href="/api/admin/users">users</a>' : '') +
            '<a href="/api/products/5005">teapot</a>',
        );
      }
      const product = /^\/api\/products\/(\d+)$/.exec(url.pathname);
      if (product) return json(200, { id: Number(product[1]), name: 'Teapot', price: 20 });
      if (!user) return json(401, { error: 'sign in' });
      const order = /^\/api\/orders\/(\d+)(\/cancel)?$/.exec(url.pathname);
      // Broken: any signed-in user reads (and cancels) any order.
      if (order && ORDERS[order[1]] && (order[2] ? req.method === 'POST' : req.method === 'GET')) {
        if (patched.has('/api/orders') && ORDERS[order[1]] !== user) return json(403, { error: 'not yours' });
        return json(200, {
          id: Number(order[1]),
          owner: USERS[ORDERS[order[1]]].email,
          status: order[2] ? 'cancelled' : 'paid',
          items: [{ sku: 'teapot', quantity: 2 }],
        });
      }
      const invoice = /^\/api\/invoices\/(\d+)$/.exec(url.pathname);
      if (invoice && INVOICES[invoice[1]]) {
        if (INVOICES[invoice[1]] !== user) return json(403, { error: 'not yours' });
        return json(200, { id: Number(invoice[1]), owner: USERS[user].email, amount: 40 });
      }
      // Broken: the admin's function checks the session, not the role.
      if (url.pathname === '/api/admin/users')
        return json(
          200,
          Object.entries(USERS).map(([name, u]) => ({ id: u.id, name, email: u.email, role: u.role })),
        );
      json(404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    patched,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
