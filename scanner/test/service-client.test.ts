import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { service, ServiceError } from '../src/net/service.ts';

// The scanner's one service client (src/net/service.ts): what it retries, what it refuses at once, and its token.
// A real HTTP server on loopback answers each request from a script of answers.

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A service that answers logins with a numbered token and each other request with the next scripted answer. */
async function scriptedService(answers: Answer[]) {
  const requests: { path: string; authorization?: string }[] = [];
  let logins = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const reply = ({ status, body, headers }: Answer) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body ?? {}));
    };
    if (req.url === '/api/v1/auth/login') {
      logins++;
      return req.headers['x-apikey'] === 'good-key'
        ? reply({ status: 200, body: { token: `token-${logins}` } })
        : reply({ status: 401, body: { message: 'unknown API key' } });
    }
    requests.push({ path: req.url ?? '', authorization: req.headers.authorization });
    reply(answers.shift() ?? { status: 500, body: { message: 'no answer scripted' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, logins: () => logins };
}

describe('the scanner service client', () => {
  it('retries 5xx and answers the first success', async () => {
    const peer = await scriptedService([
      { status: 503, body: { message: 'busy' } },
      { status: 502 },
      { status: 200, body: { ok: true } },
    ]);
    const retries: number[] = [];
    const api = service({ url: peer.url, apiKey: 'good-key' });
    const answer = await api.call('GET', '/thing', undefined, { onRetry: () => retries.push(retries.length) });
    expect(answer).toEqual({ ok: true });
    expect(peer.requests).toHaveLength(3);
    expect(retries).toEqual([0, 1]);
  });

  it('refuses a 4xx at once, naming the request and the message, with its status', async () => {
    const peer = await scriptedService([{ status: 404, body: { message: 'unknown scan' } }]);
    const error = await service({ url: peer.url, apiKey: 'good-key' })
      .call('POST', '/api/v1/scan/x/alerts', {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ status: 404, message: 'POST /api/v1/scan/x/alerts answered 404: unknown scan' });
    expect(peer.requests).toHaveLength(1);
  });

  it('retries a 409 only for a caller that names it, and waits out a 429 for its Retry-After', async () => {
    const plain = await scriptedService([{ status: 409, body: { message: 'changed meanwhile' } }]);
    await expect(service({ url: plain.url, apiKey: 'good-key' }).call('GET', '/a')).rejects.toMatchObject({
      status: 409,
    });
    await close?.();
    const importing = await scriptedService([
      { status: 409, body: { message: 'changed meanwhile' } },
      { status: 429, body: { message: 'slow down' }, headers: { 'retry-after': '1' } },
      { status: 200, body: { done: 1 } },
    ]);
    const started = performance.now();
    const answer = await service({ url: importing.url, apiKey: 'good-key', retryStatuses: [409] }).call('GET', '/a');
    expect(answer).toEqual({ done: 1 });
    // 0.5 s of backoff after the 409, then the 429's Retry-After of 1 s.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1400);
  });

  it('gives up after its retries, saying how many attempts and the last reason', async () => {
    const peer = await scriptedService([{ status: 500, body: { message: 'boom' } }, { status: 500 }]);
    await expect(service({ url: peer.url, apiKey: 'good-key', retries: 1 }).call('GET', '/b')).rejects.toMatchObject({
      status: 0,
      message: 'GET /b failed after 2 attempts: 500 {}',
    });
  });

  it('logs in again once on 401 with a new token, and names the key when the login is refused', async () => {
    const peer = await scriptedService([
      { status: 401, body: { message: 'expired' } },
      { status: 200, body: {} },
    ]);
    await service({ url: peer.url, apiKey: 'good-key' }).call('GET', '/c');
    expect(peer.requests.map((r) => r.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
    expect(peer.logins()).toBe(2);
    await expect(
      service({ url: peer.url, apiKey: 'bad-key', keyName: 'HAWK_API_KEY' }).call('GET', '/c'),
    ).rejects.toMatchObject({ status: 401, message: expect.stringMatching(/^login with HAWK_API_KEY failed \(401\)/) });
  });

  it('stops at once when its signal is aborted, without retrying', async () => {
    const peer = await scriptedService([{ status: 503 }, { status: 503 }]);
    const abort = new AbortController();
    const call = service({ url: peer.url, apiKey: 'good-key' }).call('GET', '/d', undefined, {
      signal: abort.signal,
      onRetry: () => abort.abort(new Error('stopped')),
    });
    await expect(call).rejects.toThrow('stopped');
    expect(peer.requests).toHaveLength(1);
  });
});
