import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFraming, readRequestHead } from '../src/agent/http-relay.ts';
import { startPinningProxy, type PinningProxy } from '../src/agent/pinning-proxy.ts';

// The pinning proxy's relay (agent/http-relay.ts): for a plain-HTTP target without a session, the engine's
// connections are relayed byte for byte, each request's head read and checked as the proxy's Node server checks
// it (the target's host and port only, at the pinned address, its Host header, the hold), each answer read only for
// where it ends. What it does not read itself goes to the Node server; what it cannot read is refused.

let target: Server;
let port: number;
/** What the target received: method, path, Host, body. */
const received: string[] = [];
beforeAll(async () => {
  target = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push(`${req.method} ${req.url} host=${req.headers.host} body=${body}`);
      if (req.url === '/empty') return void res.writeHead(204).end();
      if (req.url === '/chunked') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first;');
        setTimeout(() => res.end('second'), 20);
        return;
      }
      res.end(`${req.method} ${req.url} body=${body}`);
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  port = (target.address() as AddressInfo).port;
});
afterAll(async () => {
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
});

/** Writes `bytes` on one connection to the proxy, and reads all it answers until it closes (or `ms` passed). */
function exchange(proxy: PinningProxy, bytes: string, ms = 1500): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(proxy.url).port), '127.0.0.1', () => socket.write(bytes, 'latin1'));
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(text);
    }, ms);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on('error', reject);
  });
}

const statuses = (answers: string) => [...answers.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));

async function withProxy(run: (proxy: PinningProxy, log: string[]) => Promise<void>) {
  const log: string[] = [];
  const proxy = await startPinningProxy(new URL(`http://scan.example.test:${port}/`), '127.0.0.1', (line) =>
    log.push(line),
  );
  received.length = 0;
  try {
    await run(proxy, log);
  } finally {
    await proxy.close();
  }
}

describe("the pinning proxy's relay", () => {
  it('relays a keep-alive connection: each answer whole and in order, each request at the pinned address', async () => {
    await withProxy(async (proxy) => {
      const origin = `http://scan.example.test:${port}`;
      const answers = await exchange(
        proxy,
        `GET ${origin}/a?b=1 HTTP/1.1\r\nHost: elsewhere.test\r\nProxy-Connection: keep-alive\r\n\r\n` +
          `POST ${origin}/form HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\nq=1&r=2` +
          `HEAD ${origin}/head HTTP/1.1\r\nHost: x\r\n\r\n` +
          `GET ${origin}/empty HTTP/1.1\r\nHost: x\r\n\r\n` +
          `GET ${origin}/chunked HTTP/1.1\r\nHost: x\r\n\r\n` +
          `GET ${origin}/last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      expect(statuses(answers)).toEqual([200, 200, 200, 204, 200, 200]);
      expect(answers).toContain('GET /a?b=1 body=');
      expect(answers).toContain('POST /form body=q=1&r=2');
      expect(answers).toMatch(/first;\r\n.*\r\nsecond\r\n0\r\n\r\n/s);
      expect(answers.endsWith('GET /last body=')).toBe(true);
      const host = `host=scan.example.test:${port}`;
      expect(received).toEqual([
        `GET /a?b=1 ${host} body=`,
        `POST /form ${host} body=q=1&r=2`,
        `HEAD /head ${host} body=`,
        `GET /empty ${host} body=`,
        `GET /chunked ${host} body=`,
        `GET /last ${host} body=`,
      ]);
      expect(proxy.sent()).toEqual({ requests: 6, authenticated: 0 });
    });
  });

  it('answers a request for another host or port 403 after the answers before it, sending nothing more', async () => {
    await withProxy(async (proxy, log) => {
      const answers = await exchange(
        proxy,
        `GET http://scan.example.test:${port}/ok HTTP/1.1\r\nHost: x\r\n\r\n` +
          `GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n` +
          `GET http://scan.example.test:${port}/after HTTP/1.1\r\nHost: x\r\n\r\n`,
      );
      expect(statuses(answers)).toEqual([200, 403]);
      expect(received).toEqual([`GET /ok host=scan.example.test:${port} body=`]);
      expect(log).toEqual([
        `proxy: refused GET http://169.254.169.254 (outside the scan target scan.example.test:${port})`,
      ]);
      const alone = (target: string) => exchange(proxy, `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(statuses(await alone(`http://127.0.0.1:${port}/`))).toEqual([403]);
      expect(statuses(await alone(`https://scan.example.test:${port}/`))).toEqual([403]);
      expect(statuses(await exchange(proxy, `GET http://scan.example.test:${port}/ HTTP/1.1\r\n\r\n`))).toEqual([400]);
      expect(statuses(await exchange(proxy, `GET /origin-form HTTP/1.1\r\nHost: x\r\n\r\n`))).toEqual([400]);
      expect(received).toHaveLength(1);
    });
  });

  it('refuses what it cannot read unambiguously (400): bare line feeds, folded or broken headers, two lengths', async () => {
    await withProxy(async (proxy) => {
      const url = `http://scan.example.test:${port}/x`;
      for (const head of [
        `GET ${url} HTTP/1.1\nHost: x\n\n\r\n\r\n`,
        `GET ${url} HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n`,
        `GET ${url} HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n`,
        `GET ${url} HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n`,
        `POST ${url} HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc`,
        `POST ${url} HTTP/1.1\r\nHost: x\r\nContent-Length: -3\r\n\r\nabc`,
        `GET ${url}\tx HTTP/1.1\r\nHost: x\r\n\r\n`,
        `GET ${url} HTTP/2.0\r\nHost: x\r\n\r\n`,
      ])
        expect(statuses(await exchange(proxy, head))).toEqual([400]);
      expect(received).toEqual([]);
    });
  });

  it("sends a body as a body: a request inside another's body never reaches the target as a request", async () => {
    await withProxy(async (proxy) => {
      const smuggled = `GET http://169.254.169.254/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n`;
      const answers = await exchange(
        proxy,
        `POST http://scan.example.test:${port}/form HTTP/1.1\r\nHost: x\r\nContent-Length: ${smuggled.length}\r\nConnection: close\r\n\r\n${smuggled}`,
      );
      expect(statuses(answers)).toEqual([200]);
      expect(received).toEqual([`POST /form host=scan.example.test:${port} body=${smuggled}`]);
    });
  });

  it("hands what it does not read itself to the proxy's Node server: a chunked body, CONNECT", async () => {
    await withProxy(async (proxy) => {
      const url = `http://scan.example.test:${port}`;
      const answers = await exchange(
        proxy,
        `GET ${url}/first HTTP/1.1\r\nHost: x\r\n\r\n` +
          `POST ${url}/chunked-body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n` +
          `GET ${url}/then HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      expect(statuses(answers)).toEqual([200, 200, 200]);
      const host = `host=scan.example.test:${port}`;
      expect(received).toEqual([
        `GET /first ${host} body=`,
        `POST /chunked-body ${host} body=abc`,
        `GET /then ${host} body=`,
      ]);
      expect(proxy.sent().requests).toBe(3);
      // A plain-HTTP target is never tunnelled.
      expect(
        statuses(
          await exchange(
            proxy,
            `CONNECT scan.example.test:${port} HTTP/1.1\r\nHost: scan.example.test:${port}\r\n\r\n`,
          ),
        ),
      ).toEqual([403]);
    });
  });

  it('holds the requests until the run may attack, and answers 503 when it may not', async () => {
    await withProxy(async (proxy) => {
      let go!: (value: boolean) => void;
      proxy.holdUntil(new Promise((resolve) => (go = resolve)));
      const held = `GET http://scan.example.test:${port}/held HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
      const answered = exchange(proxy, held);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(received).toEqual([]);
      go(true);
      expect(statuses(await answered)).toEqual([200]);
      proxy.holdUntil(Promise.resolve(false));
      await new Promise((resolve) => setTimeout(resolve, 10));
      const refused = `GET http://scan.example.test:${port}/no HTTP/1.1\r\nHost: x\r\n\r\n`;
      expect(statuses(await exchange(proxy, refused))).toEqual([503]);
      expect(received).toHaveLength(1);
    });
  });

  it('answers 502 when the target cannot be reached, and says so in the log', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const log: string[] = [];
    const proxy = await startPinningProxy(new URL(`http://scan.example.test:${gone}/`), '127.0.0.1', (line) =>
      log.push(line),
    );
    try {
      const request = `GET http://scan.example.test:${gone}/ HTTP/1.1\r\nHost: x\r\n\r\n`;
      expect(statuses(await exchange(proxy, request))).toEqual([502]);
      expect(log.join('\n')).toMatch(/proxy: the target could not be reached: .*ECONNREFUSED/);
    } finally {
      await proxy.close();
    }
  });
});

describe("the relay's reading of heads", () => {
  it('reads a request head, keeping the headers but Host and Proxy-Connection', () => {
    expect(readRequestHead('GET http://a.test/x?y=1 HTTP/1.1\r\nHost: b\r\nX-A:  1 \r\nproxy-connection: k')).toEqual({
      kind: 'forward',
      method: 'GET',
      url: new URL('http://a.test/x?y=1'),
      lines: ['X-A: 1'],
      length: 0,
    });
    for (const handed of [
      'CONNECT a.test:443 HTTP/1.1',
      'GET http://a.test/ HTTP/1.0',
      'POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked',
      'POST http://a.test/ HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 1',
      'GET http://a.test/ HTTP/1.1\r\nUpgrade: websocket',
    ])
      expect(readRequestHead(handed)).toEqual({ kind: 'hand over' });
  });

  it("reads where an answer's body ends", () => {
    expect(answerFraming('HTTP/1.1 200 OK\r\nContent-Length: 12', 'GET')).toEqual({ status: 200, body: 12 });
    expect(answerFraming('HTTP/1.1 200 OK\r\nContent-Length: 12', 'HEAD')).toEqual({ status: 200, body: 'none' });
    expect(answerFraming('HTTP/1.1 304 Not Modified\r\nContent-Length: 12', 'GET')).toEqual({
      status: 304,
      body: 'none',
    });
    expect(answerFraming('HTTP/1.1 100 Continue', 'POST')).toEqual({ status: 100, body: 'none' });
    expect(answerFraming('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 3', 'GET')).toEqual({
      status: 200,
      body: 'chunked',
    });
    expect(answerFraming('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip', 'GET')).toEqual({ status: 200, body: 'close' });
    expect(answerFraming('HTTP/1.0 200 OK', 'GET')).toEqual({ status: 200, body: 'close' });
    expect(answerFraming('HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2', 'GET')).toBeUndefined();
    expect(answerFraming('HTTP/1.1 101 Switching Protocols', 'GET')).toBeUndefined();
    expect(answerFraming('HTTP/1.1 200 OK\nContent-Length: 1', 'GET')).toBeUndefined();
  });
});
