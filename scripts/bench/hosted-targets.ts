import { fork } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

// The sites `npm run bench -- hosted` scans (scripts/bench/hosted.ts), on loopback and deterministic: the same
// pages, forms and answers on every run, so wapiti alone and the hosted scan find the same findings. The bench runs
// each in a process of its own (startTargetProcess), as a real site is: neither wapiti's requests nor the agent's
// proxy share its event loop.

/** A site served in this process. */
export interface LocalTarget {
  url: string;
  /** What the site holds, for the bench's figures. */
  description: string;
  /** Requests the site answered so far. */
  requests(): number;
  close(): Promise<void>;
}

/** A site served by a process of its own (hosted-target-process.ts). */
export interface BenchTarget {
  url: string;
  description: string;
  /** The site's process (its CPU time: cpu.ts). */
  pid: number;
  /** Requests the site answered so far. */
  requests(): Promise<number>;
  close(): Promise<void>;
}

export const TARGETS = {
  small: () => startSmallTarget(),
  shop: () => startShopTarget(),
};

/** Messages between the bench and a site's process: the site's address once it listens, its request count. */
export type TargetMessage =
  { type: 'listening'; url: string; description: string } | { type: 'requests'; id: number; requests?: number };

/** Starts a site in a process of its own; `close()` ends the process. */
export function startTargetProcess(kind: keyof typeof TARGETS): Promise<BenchTarget> {
  const child = fork(fileURLToPath(new URL('./hosted-target-process.ts', import.meta.url)), [kind], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const asked = new Map<number, (requests: number) => void>();
  let nextId = 0;
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    void exited.then(() => reject(new Error(`the ${kind} site's process exited before it listened`)));
    child.on('message', (message: TargetMessage) => {
      if (message.type === 'requests') {
        asked.get(message.id)?.(message.requests!);
        asked.delete(message.id);
        return;
      }
      resolve({
        url: message.url,
        description: message.description,
        pid: child.pid!,
        requests: () =>
          new Promise((answered) => {
            const id = nextId++;
            asked.set(id, answered);
            child.send({ type: 'requests', id } satisfies TargetMessage);
          }),
        close: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

const escape = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1>${body}</body></html>`;

/** Letters only (`aa`, `ab`, ...): a product's name in its path is not an id, so each page keeps its own findings. */
const letters = (i: number) => String.fromCharCode(97 + Math.floor(i / 26)) + String.fromCharCode(97 + (i % 26));

async function serve(
  handle: (url: URL, form: URLSearchParams, req: IncomingMessage, res: ServerResponse) => void,
  description: string,
): Promise<LocalTarget> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://target');
      const form = new URLSearchParams(req.method === 'POST' ? Buffer.concat(chunks).toString('utf8') : '');
      handle(url, form, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    description,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const html = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'sid=abc; Path=/' });
  res.end(body);
};

/** The small site: an index and a search page reflecting its parameter, and a cookie without flags. */
export function startSmallTarget(): Promise<LocalTarget> {
  return serve((url, _form, _req, res) => {
    if (url.pathname === '/search')
      return html(res, 200, `<html><body>Results for ${url.searchParams.get('q')}</body></html>`);
    if (url.pathname === '/') return html(res, 200, '<html><body><a href="/search?q=shoes">search</a></body></html>');
    html(res, 404, 'not found');
  }, 'an index and a search page reflecting its parameter');
}

const CATEGORIES = ['shoes', 'shirts', 'hats', 'bags', 'coats', 'socks', 'belts', 'gloves'];
const PRODUCTS_PER_CATEGORY = 6;

/**
 * The larger site, a small shop with the shape of a real one: a search form, a contact form, and per category a
 * listing with a filter form and products, each with a review form. Some parameters are reflected as they came
 * (findings), most escaped (which wapiti's XSS module tries at length, as on a real site), a cookie without flags.
 */
export function startShopTarget(): Promise<LocalTarget> {
  const sessions = new Map<string, string>();
  const products = (category: string) =>
    Array.from({ length: PRODUCTS_PER_CATEGORY }, (_, i) => `${category}-${letters(i)}`);
  const nav =
    `<a href="/">home</a> <a href="/contact">contact</a> ` +
    `<form action="/search" method="get"><input name="q" value=""><input type="submit"></form> ` +
    CATEGORIES.map((c) => `<a href="/shop/${c}?sort=name">${c}</a>`).join(' ');
  return serve(
    (url, form, req, res) => {
      const path = url.pathname;
      const q = (name: string) => url.searchParams.get(name) ?? '';
      if (path === '/login' || path === '/account' || path.startsWith('/api/'))
        return accountArea(path, form, req, res, sessions);
      if (path === '/') return html(res, 200, page('Shop', nav));
      if (path === '/search')
        // Reflected as it came: a finding.
        return html(res, 200, page('Search', `${nav}<p>Results for ${q('q')}</p>`));
      if (path === '/contact') {
        const sent =
          req.method === 'POST' ? `<p>Thank you ${escape(form.get('name') ?? '')}, we will write back.</p>` : '';
        return html(
          res,
          200,
          page(
            'Contact',
            `${nav}${sent}<form action="/contact" method="post"><input name="name"><input name="email">` +
              `<input name="subject"><textarea name="message"></textarea><input type="submit"></form>`,
          ),
        );
      }
      const listing = /^\/shop\/([a-z]+)$/.exec(path);
      if (listing && CATEGORIES.includes(listing[1])) {
        const category = listing[1];
        return html(
          res,
          200,
          page(
            category,
            `${nav}<p>Brand ${escape(q('brand'))}</p>` +
              `<form action="/shop/${category}" method="get"><input name="brand"><input name="min"><input name="max">` +
              `<input type="hidden" name="sort" value="name"><input type="submit"></form>` +
              products(category)
                .map((p) => `<a href="/shop/${category}/${p}?color=red&size=m">${p}</a>`)
                .join(' '),
          ),
        );
      }
      const product = /^\/shop\/([a-z]+)\/([a-z]+-[a-z]+)$/.exec(path);
      if (product && CATEGORIES.includes(product[1]) && products(product[1]).includes(product[2])) {
        const [, category, name] = product;
        const reviewed =
          req.method === 'POST'
            ? // The review's author escaped, its title reflected as it came: a finding per product.
              `<p>Review by ${escape(form.get('author') ?? '')}: ${form.get('title') ?? ''}</p>`
            : '';
        return html(
          res,
          200,
          page(
            name,
            `${nav}<p>${escape(name)} in ${escape(q('color'))}</p>${reviewed}` +
              `<form action="/shop/${category}/${name}" method="post"><input name="author"><input name="title">` +
              `<input name="rating" value="5"><textarea name="comment"></textarea><input type="submit"></form>`,
          ),
        );
      }
      html(res, 404, page('Not found', nav));
    },
    `a shop (and, linked from no public page, a login for ${Object.keys(SHOP_USERS).join(' and ')} and their account's API: orders any signed-in user reads, invoices only their owner): an index, a search form, a contact form (4 fields), ${CATEGORIES.length} listings with a filter form (4 fields) and ${CATEGORIES.length * PRODUCTS_PER_CATEGORY} products (2 query parameters and a review form of 4 fields each)`,
  );
}

/** The shop's users (the authorization bench's two users, scripts/bench/authorization.ts), each with orders and invoices. */
export const SHOP_USERS: Record<string, { password: string; orders: number[]; invoices: number[] }> = {
  alice: { password: 'alice-pw', orders: [1001, 1002, 1003], invoices: [2001, 2002] },
  bob: { password: 'bob-pw', orders: [1101, 1102], invoices: [2101] },
};

/**
 * The shop's account area: a form login (`shopsession` cookie), the account page listing the user's orders and
 * invoices, and their JSON. An order answers any signed-in user (broken object level authorization); an invoice
 * only its owner.
 */
function accountArea(
  path: string,
  form: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
  sessions: Map<string, string>,
) {
  const sid = /\bshopsession=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
  const user = (sid && sessions.get(sid)) || '';
  const json = (status: number, value: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  if (path === '/login' && req.method === 'POST') {
    const name = form.get('username') ?? '';
    if (SHOP_USERS[name]?.password !== form.get('password')) return void res.writeHead(401).end();
    const id = `s${sessions.size + 1}-${name}`;
    sessions.set(id, name);
    return void res.writeHead(302, { location: '/account', 'set-cookie': `shopsession=${id}; Path=/` }).end();
  }
  if (path === '/login')
    return html(
      res,
      200,
      page('Sign in', '<form method="post" action="/login"><input name="username"><input name="password"></form>'),
    );
  if (path === '/account') {
    if (!user) return html(res, 200, page('Account', '<a href="/login">Sign in</a>'));
    const { orders, invoices } = SHOP_USERS[user];
    return html(
      res,
      200,
      page(
        'Account',
        `<p>Signed in as ${user}</p>` +
          orders.map((id) => `<a href="/api/orders/${id}">order ${id}</a> `).join('') +
          invoices.map((id) => `<a href="/api/invoices/${id}">invoice ${id}</a> `).join(''),
      ),
    );
  }
  if (!user) return json(401, { error: 'sign in' });
  const ownerOf = (kind: 'orders' | 'invoices', id: number) =>
    Object.keys(SHOP_USERS).find((name) => SHOP_USERS[name][kind].includes(id));
  const order = /^\/api\/orders\/(\d+)$/.exec(path);
  const orderOwner = order && ownerOf('orders', Number(order[1]));
  if (orderOwner)
    return json(200, { id: Number(order![1]), owner: `${orderOwner}@shop.test`, total: 40, status: 'paid' });
  const invoice = /^\/api\/invoices\/(\d+)$/.exec(path);
  const invoiceOwner = invoice && ownerOf('invoices', Number(invoice[1]));
  if (invoiceOwner && invoiceOwner !== user) return json(403, { error: 'not yours' });
  if (invoiceOwner) return json(200, { id: Number(invoice![1]), owner: `${user}@shop.test`, amount: 40 });
  json(404, { error: 'not found' });
}

/**
 * A FORM login of `app.authentication` (docs/SCANNER-AUTH.md) as YAML lines indented by `indent`: POST /login with
 * username and password, the session in the cookie `cookie`, checked by /account saying "Signed in as <user>" (the
 * shop's and the authorization tests' site alike).
 */
export const formLogin = (user: string, password: string, cookie: string, indent: string) =>
  `usernamePassword:
  type: FORM
  loginPath: /login
  usernameField: username
  passwordField: password
  scanUsername: ${user}
  scanPassword: ${password}
cookieAuthorization:
  cookieNames: [${cookie}]
testPath:
  path: /account
  type: BODY
  success: "Signed in as ${user}"
`
    .split('\n')
    .map((line) => (line ? `${indent}${line}` : line))
    .join('\n');
