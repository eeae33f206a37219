import { createServer, request, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPinningProxy, type PinningProxy } from '../src/agent/pinning-proxy.ts';
import { runCertificate } from '../src/net/run-certificate.ts';

// The agent's pinning proxy: the engine's requests reach only the scan target's host and port, at the address
// resolved when the scan started, whatever the request names. For an HTTPS target it answers CONNECT itself with a
// certificate of the run's authority, and reaches the target over TLS, checking the target's certificate.

let target: Server;
let targetPort: number;
let proxy: PinningProxy;
const lines: string[] = [];
beforeAll(async () => {
  target = createServer((req, res) => res.end(`${req.method} ${req.url} host=${req.headers.host}`));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetPort = (target.address() as AddressInfo).port;
  // The target is named scan.example.test; the proxy reaches it at the pinned 127.0.0.1 without resolving the name.
  proxy = await startPinningProxy(new URL(`http://scan.example.test:${targetPort}/`), '127.0.0.1', (line) =>
    lines.push(line),
  );
});
afterAll(async () => {
  await proxy.close();
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
});

function viaProxy(method: string, path: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: Number(port), method, path }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the pinning proxy', () => {
  it('forwards requests for the target to the pinned address, keeping the Host header', async () => {
    const out = await viaProxy('GET', `http://scan.example.test:${targetPort}/a?b=1`);
    expect(out).toEqual({ status: 200, body: `GET /a?b=1 host=scan.example.test:${targetPort}` });
  });

  it('refuses any other host or port, and CONNECT elsewhere, and logs each refusal once', async () => {
    expect((await viaProxy('GET', 'http://169.254.169.254/latest/meta-data/')).status).toBe(403);
    expect((await viaProxy('GET', `http://127.0.0.1:${targetPort}/`)).status).toBe(403);
    expect((await viaProxy('GET', 'http://scan.example.test:1/')).status).toBe(403);
    const connect = await new Promise<number>((resolve, reject) => {
      const { port } = new URL(proxy.url);
      const req = request({ host: '127.0.0.1', port: Number(port), method: 'CONNECT', path: 'github.com:443' });
      req.on('connect', (res, socket) => {
        socket.destroy();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(connect).toBe(403);
    // A plain-HTTP target is never tunnelled: the proxy sees all of its traffic.
    expect(await connectStatus(proxy, `scan.example.test:${targetPort}`)).toBe(403);
    await viaProxy('GET', 'http://169.254.169.254/latest/meta-data/');
    expect(lines.filter((line) => line.includes('169.254.169.254'))).toHaveLength(1);
    expect(lines).toContain(
      'proxy: refused CONNECT github.com:443 (outside the scan target scan.example.test:' + targetPort + ')',
    );
  });
});

function connectStatus(through: PinningProxy, authority: string): Promise<number> {
  const { port } = new URL(through.url);
  return new Promise<number>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: Number(port), method: 'CONNECT', path: authority });
    req.on('connect', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

/** GET `path` of the HTTPS target through the proxy, as an engine would: CONNECT, then TLS trusting `authority`. */
function httpsViaProxy(through: PinningProxy, port: number, path: string, authority: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port: Number(new URL(through.url).port),
      method: 'CONNECT',
      path: `scan.example.test:${port}`,
    });
    req.on('connect', (res, socket: Socket) => {
      if (res.statusCode !== 200) return reject(new Error(`CONNECT answered ${res.statusCode}`));
      const tls = tlsConnect({ socket, servername: 'scan.example.test', ca: authority }, () => {
        tls.write(`GET ${path} HTTP/1.1\r\nhost: scan.example.test:${port}\r\nconnection: close\r\n\r\n`);
      });
      let text = '';
      tls.on('data', (chunk) => (text += chunk));
      tls.on('end', () =>
        resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) }),
      );
      tls.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the pinning proxy for an HTTPS target', () => {
  let secureTarget: Server;
  let port: number;
  let targetAuthority: string;
  beforeAll(async () => {
    const certificate = await runCertificate('scan.example.test', new Date(Date.now() + 3600_000));
    targetAuthority = certificate.authority;
    secureTarget = createHttpsServer({ key: certificate.key, cert: certificate.chain }, (req, res) =>
      res.end(`${req.method} ${req.url} host=${req.headers.host}`),
    );
    await new Promise<void>((resolve) => secureTarget.listen(0, '127.0.0.1', resolve));
    port = (secureTarget.address() as AddressInfo).port;
  });
  afterAll(async () => {
    secureTarget.closeAllConnections();
    await new Promise((resolve) => secureTarget.close(resolve));
  });

  it("shows the engine the run's certificate for the target and forwards over TLS to the pinned address", async () => {
    const https = await startPinningProxy(new URL(`https://scan.example.test:${port}/`), '127.0.0.1', () => {}, {
      trustedCa: targetAuthority,
    });
    try {
      expect(https.authority).toMatch(/^-----BEGIN CERTIFICATE-----/);
      // The engine's TLS checks out against the run's authority (and would against no other).
      expect(await httpsViaProxy(https, port, '/a?b=1', https.authority!)).toEqual({
        status: 200,
        body: `GET /a?b=1 host=scan.example.test:${port}`,
      });
      await expect(httpsViaProxy(https, port, '/', targetAuthority)).rejects.toThrow(/certificate/);
      expect(await connectStatus(https, `scan.example.test:1`)).toBe(403);
      expect(await connectStatus(https, `169.254.169.254:${port}`)).toBe(403);
    } finally {
      await https.close();
    }
  });

  it("refuses a target whose certificate it does not trust: 502, and says why in the run's log", async () => {
    const log: string[] = [];
    const https = await startPinningProxy(new URL(`https://scan.example.test:${port}/`), '127.0.0.1', (line) =>
      log.push(line),
    );
    try {
      expect((await httpsViaProxy(https, port, '/', https.authority!)).status).toBe(502);
      expect(log.join('\n')).toMatch(/proxy: the target could not be reached: .*certificate/i);
    } finally {
      await https.close();
    }
  });
});

describe("the pinning proxy's recording and replays (the authorization phase)", () => {
  it("keeps the session's 2xx exchanges while recording, and replays with exactly the headers it is given", async () => {
    const shop = createServer((req, res) =>
      res.writeHead(req.url === '/missing' ? 404 : 200).end(`cookie=${req.headers.cookie ?? ''}`),
    );
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    const port = (shop.address() as AddressInfo).port;
    const through = await startPinningProxy(new URL(`http://shop.test:${port}/`), '127.0.0.1', () => undefined);
    const send = (path: string) =>
      new Promise<string>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port: Number(new URL(through.url).port), path: `http://shop.test:${port}${path}` },
          (res) => {
            let body = '';
            res.on('data', (chunk) => (body += chunk));
            res.on('end', () => resolve(body));
          },
        );
        req.on('error', reject);
        req.end();
      });
    try {
      through.carry({
        watching: false,
        current: () => ({ headers: { cookie: 'sid=alice' }, generation: 0 }),
        loggedOut: () => false,
        renew: async () => false,
        cookiesSet: () => undefined,
      });
      through.record(true);
      expect(await send('/orders/1001')).toBe('cookie=sid=alice');
      await send('/missing');
      through.record(false);
      await send('/orders/1002');
      const recorded = through.recorded();
      expect(recorded.map((e) => [e.method, e.path, e.status, e.responseBody.toString()])).toEqual([
        ['GET', '/orders/1001', 200, 'cookie=sid=alice'],
      ]);
      // The engine's own headers: the session is the proxy's, not part of the request.
      expect(recorded[0].requestHeaders.cookie).toBeUndefined();
      const sent = through.sent();
      const replayed = await through.replay({
        method: 'GET',
        path: '/orders/1001',
        headers: { cookie: 'sid=bob' },
        body: Buffer.alloc(0),
      });
      expect([replayed.status, replayed.body.toString()]).toEqual([200, 'cookie=sid=bob']);
      const anonymous = await through.replay({
        method: 'GET',
        path: '/orders/1001',
        headers: {},
        body: Buffer.alloc(0),
      });
      expect(anonymous.body.toString()).toBe('cookie=');
      expect(through.sent()).toEqual(sent);
    } finally {
      await through.close();
      shop.closeAllConnections();
      await new Promise((resolve) => shop.close(resolve));
    }
  });

  it('gives up a replay the target does not answer in time', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const through = await startPinningProxy(new URL(`http://shop.test:${port}/`), '127.0.0.1', () => undefined);
    try {
      const request = { method: 'GET', path: '/orders/1001', headers: {}, body: Buffer.alloc(0), timeoutMs: 200 };
      await expect(through.replay(request)).rejects.toThrow('no answer in 200 ms');
    } finally {
      await through.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
