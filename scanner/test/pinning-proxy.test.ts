import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPinningProxy, type PinningProxy } from '../src/agent/pinning-proxy.ts';

// The agent's pinning proxy: the engine's requests reach only the scan target's host and port, at the address
// resolved when the scan started, whatever the request names.

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
    await viaProxy('GET', 'http://169.254.169.254/latest/meta-data/');
    expect(lines.filter((line) => line.includes('169.254.169.254'))).toHaveLength(1);
    expect(lines).toContain(
      'proxy: refused CONNECT github.com:443 (outside the scan target scan.example.test:' + targetPort + ')',
    );
  });
});
