import { describe, expect, it } from 'vitest';
import {
  BFLA,
  BOLA,
  candidatesOf,
  compare,
  judge,
  paramOf,
  requestIdentifiers,
  responseIdentifiers,
  sameStructure,
  type Answer,
  type Candidate,
  type Exchange,
} from '../src/agent/authorization-compare.ts';

// The authorization phase's judgement (docs/SCANNER-AUTH.md, Authorization testing): which of the primary user's
// requests are replayed, and what another user's or no session's answer means.

const exchange = (method: string, path: string, body: unknown, extra: Partial<Exchange> = {}): Exchange => ({
  method,
  path,
  requestHeaders: {},
  requestBody: '',
  status: 200,
  responseHeaders: { 'content-type': 'application/json' },
  responseBody: typeof body === 'string' ? body : JSON.stringify(body),
  ...extra,
});
const answer = (status: number, body: unknown): Answer => ({
  status,
  headers: {},
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const candidateOf = (e: Exchange): Candidate => ({
  exchange: e,
  requestIds: requestIdentifiers(e),
  responseIds: responseIdentifiers(e.responseBody),
});

const ORDER = { id: 1001, owner: 'alice@shop.test', status: 'paid', items: [{ sku: 'teapot', quantity: 2 }] };
const USERS = [
  { id: 101, email: 'alice@shop.test', role: 'admin' },
  { id: 102, email: 'bob@shop.test', role: 'user' },
];

describe('identifiers', () => {
  it('finds ids in the path, the query and a form or JSON body, and the ids of a JSON answer', () => {
    const form = exchange('POST', '/api/orders/1001/items?cartId=c-77&page=2', ORDER, {
      requestHeaders: { 'content-type': 'application/x-www-form-urlencoded' },
      requestBody: 'productId=5005&note=hello',
    });
    expect(requestIdentifiers(form)).toEqual([
      { where: 'path', name: '{id}', value: '1001' },
      { where: 'query', name: 'cartId', value: 'c-77' },
      { where: 'body', name: 'productId', value: '5005' },
    ]);
    const json = exchange(
      'PUT',
      '/api/profile/9b2f1c2e-0d4e-4b1a-9f6e-2a5b7c9d1e3f',
      {},
      {
        requestHeaders: { 'content-type': 'application/json' },
        requestBody: JSON.stringify({ address: { ownerId: 'u-4711' }, quantity: 2 }),
      },
    );
    expect(requestIdentifiers(json).map((id) => id.value)).toEqual(['9b2f1c2e-0d4e-4b1a-9f6e-2a5b7c9d1e3f', 'u-4711']);
    expect(responseIdentifiers(JSON.stringify(USERS))).toEqual(['101', 'alice@shop.test', '102', 'bob@shop.test']);
    // Short values match by chance; an HTML answer has no ids of its own.
    expect(responseIdentifiers(JSON.stringify({ id: 7 }))).toEqual([]);
    expect(responseIdentifiers('<a href="/orders/1001">')).toEqual([]);
  });
});

describe('candidates', () => {
  const crawl = [
    exchange('GET', '/api/orders/1001', ORDER),
    exchange('GET', '/api/orders/1001', ORDER),
    exchange('GET', '/account', '<p>Signed in as alice</p>', { responseHeaders: { 'content-type': 'text/html' } }),
    exchange('GET', '/api/orders/1002', { error: 'gone' }, { status: 404 }),
    exchange('POST', '/api/orders/1001/cancel', ORDER, { requestBody: 'reason=x' }),
    exchange('GET', '/logout/1001', {}),
    exchange('GET', '/api/admin/users', USERS),
  ];

  it('replays each successful request with identifiers once; unsafe ones only when allowed; excluded paths never', () => {
    const safe = candidatesOf(crawl, { excludePaths: [/^\/logout/], replayUnsafeMethods: false });
    expect(safe.candidates.map((c) => `${c.exchange.method} ${c.exchange.path}`)).toEqual([
      'GET /api/orders/1001',
      'GET /api/admin/users',
    ]);
    expect(safe).toMatchObject({ skippedUnsafe: 1, excluded: 1 });
    const unsafe = candidatesOf(crawl, { excludePaths: [], replayUnsafeMethods: true });
    expect(unsafe.candidates.map((c) => `${c.exchange.method} ${c.exchange.path}`)).toEqual([
      'GET /api/orders/1001',
      'POST /api/orders/1001/cancel',
      'GET /logout/1001',
      'GET /api/admin/users',
    ]);
    expect(unsafe).toMatchObject({ skippedUnsafe: 0, excluded: 0 });
  });
});

describe('comparison', () => {
  const order = candidateOf(exchange('GET', '/api/orders/1001', ORDER));

  it('takes a 2xx of the same structure holding the primary identifiers for the same object', () => {
    expect(compare(order, answer(200, ORDER), ['alice'])).toMatchObject({
      sameObject: true,
      idsPresent: ['1001', 'alice@shop.test'],
      privatePresent: ['alice'],
    });
    // Refused, another structure, another object: not the primary's.
    expect(compare(order, answer(403, { error: 'not yours' }), []).sameObject).toBe(false);
    expect(compare(order, answer(200, '<html>order page</html>'), []).sameObject).toBe(false);
    const bobs = { ...ORDER, id: 1002, owner: 'bob@shop.test' };
    expect(compare(order, answer(200, bobs), []).sameObject).toBe(false);
    // An identifier must be a whole value: 10015 is not 1001.
    expect(compare(order, answer(200, { ...ORDER, id: 10015, owner: 'x' }), []).idsPresent).toEqual([]);
  });

  it('compares structure by JSON key paths, other bodies by size', () => {
    expect(sameStructure(JSON.stringify(USERS), JSON.stringify([USERS[0]]))).toBe(true);
    expect(sameStructure(JSON.stringify(ORDER), JSON.stringify({ error: 'x' }))).toBe(false);
    expect(sameStructure('a'.repeat(100), 'b'.repeat(90))).toBe(true);
    expect(sameStructure('a'.repeat(100), 'b'.repeat(50))).toBe(false);
    expect(sameStructure('{}', 'not json')).toBe(false);
  });
});

describe('verdicts', () => {
  const same = (user: string | undefined, c: Candidate, body: unknown, privateValues: string[] = []) => {
    const a = answer(200, body);
    return { identity: user ? { user } : {}, answer: a, comparison: compare(c, a, privateValues) };
  };
  const refused = (user: string | undefined, c: Candidate, status = 401) => {
    const a = answer(status, { error: 'no' });
    return { identity: user ? { user } : {}, answer: a, comparison: compare(c, a, []) };
  };
  const order = candidateOf(exchange('GET', '/api/orders/1001', ORDER));
  const users = candidateOf(exchange('GET', '/api/admin/users', USERS));
  const product = candidateOf(exchange('GET', '/api/products/5005', { id: 5005, name: 'Teapot' }));
  const options = { reportUnauthenticated: true };

  it("reports another user's access to an object named by an identifier as BOLA, to a function as BFLA", () => {
    const bola = judge(order, [same('bob', order, ORDER), refused(undefined, order)], options);
    expect(bola?.kind).toBe(BOLA);
    expect(bola?.broken.map((b) => b.identity)).toEqual([{ user: 'bob' }]);
    expect(judge(users, [same('bob', users, USERS), refused(undefined, users)], options)?.kind).toBe(BFLA);
    expect(BOLA.cweId).toBe('639');
    expect(BFLA.cweId).toBe('285');
    expect(paramOf(order)).toBe('path:{id}');
    expect(paramOf(users)).toBe('');
  });

  it('reports nothing for a checked object, or a public one (the same without a session, nothing private)', () => {
    expect(judge(order, [refused('bob', order, 403), refused(undefined, order)], options)).toBeUndefined();
    expect(
      judge(
        product,
        [same('bob', product, { id: 5005, name: 'Teapot' }), same(undefined, product, { id: 5005, name: 'Teapot' })],
        options,
      ),
    ).toBeUndefined();
  });

  it("reports the primary's object without a session when it holds a private value, unless told not to", () => {
    const open = [refused('bob', order, 403), same(undefined, order, ORDER, ['alice@shop.test'])];
    expect(judge(order, open, options)?.broken.map((b) => b.identity)).toEqual([{}]);
    expect(judge(order, open, { reportUnauthenticated: false })).toBeUndefined();
  });
});
