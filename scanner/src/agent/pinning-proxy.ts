// A forward proxy on loopback that the engine sends all its traffic through: it only reaches the scan target's
// host and port, always at the address resolved once when the scan started (no DNS rebinding), so a hosted scan
// cannot be turned toward metadata or private addresses by redirects, links or a second DNS answer.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface PinningProxy {
  url: string;
  close(): Promise<void>;
}

export async function startPinningProxy(
  target: URL,
  address: string,
  log: (line: string) => void,
): Promise<PinningProxy> {
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  const host = target.hostname.toLowerCase();
  const refused = new Set<string>();
  const allowed = (hostname: string, p: number) =>
    hostname.toLowerCase().replace(/^\[|\]$/g, '') === host.replace(/^\[|\]$/g, '') && p === port;
  const refuse = (what: string) => {
    if (refused.size < 50 && !refused.has(what)) {
      refused.add(what);
      log(`proxy: refused ${what} (outside the scan target ${target.host})`);
    }
  };

  const server: Server = createServer((req: IncomingMessage, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const p = Number(url.port || 80);
    if (url.protocol !== 'http:' || !allowed(url.hostname, p)) {
      refuse(`${req.method} ${url.origin}`);
      res.writeHead(403, { 'content-type': 'text/plain' }).end('outside the scan target');
      return;
    }
    // The target's name, whatever the client put in Host: the request is the target's, at the pinned address.
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: url.host };
    delete headers['proxy-connection'];
    const upstream = request(
      { host: address, port: p, method: req.method, path: `${url.pathname}${url.search}`, headers, setHost: false },
      (response) => {
        res.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });
  server.on('connect', (req, socket, head) => {
    const [hostname, portText] = (req.url ?? '').split(/:(?=\d+$)/);
    if (!allowed(hostname, Number(portText))) {
      refuse(`CONNECT ${req.url}`);
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(Number(portText), address, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: proxyPort } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
