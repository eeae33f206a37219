// A forward proxy on loopback that the engine sends all its traffic through: it only reaches the scan target's
// host and port, always at the address resolved once when the scan started (no DNS rebinding), so a hosted scan
// cannot be turned toward metadata or private addresses by redirects, links or a second DNS answer.
// Once the agent logged in, the proxy also carries the session for the engine (docs/HOSTED-SCANS.md, Login): it adds
// the session's cookies and token to each plain-HTTP request, and when an answer shows the session lost
// (loggedOutIndicator) it has the agent log in again and sends the request once more with the new session.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';

/** The logged-in session the proxy carries for the engine (session-relay.ts). */
export interface ProxySession {
  /** The current session's headers (cookie, token) and its generation, counted up by each login. */
  current(): { headers: Record<string, string>; generation: number };
  /** Whether an answer (status line, lower-case headers, body) shows a lost session. */
  loggedOut(response: string): boolean;
  /**
   * Logs in again, unless a session newer than `generation` exists already (one login at a time); resolves false
   * when the session cannot be renewed any more.
   */
  renew(generation: number, request: string): Promise<boolean>;
  /** The target set cookies on an answer of session `generation` (a session cookie rotated). */
  cookiesSet(generation: number, setCookies: string[]): void;
}

export interface PinningProxy {
  url: string;
  /** From now on, the engine's plain-HTTP requests carry this session (HTTPS ones are tunnelled, untouched). */
  carry(session: ProxySession): void;
  /**
   * Holds the engine's requests until `ready` settles: true lets them through, false (or a rejection) refuses
   * them (503), so an engine started early sends nothing to the target before the run may attack.
   */
  holdUntil(ready: Promise<boolean>): void;
  close(): Promise<void>;
}

/** A request body the proxy keeps to send again after a re-login; the engine's are small forms and queries. */
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;
/** How much of an answer's body the loggedOutIndicator is matched against. */
const JUDGED_BODY_BYTES = 256 * 1024;

export async function startPinningProxy(
  target: URL,
  address: string,
  log: (line: string) => void,
): Promise<PinningProxy> {
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  const host = target.hostname.toLowerCase();
  const refused = new Set<string>();
  let session: ProxySession | undefined;
  let ready: Promise<boolean> = Promise.resolve(true);
  const allowed = (hostname: string, p: number) =>
    hostname.toLowerCase().replace(/^\[|\]$/g, '') === host.replace(/^\[|\]$/g, '') && p === port;
  const refuse = (what: string) => {
    if (refused.size < 50 && !refused.has(what)) {
      refused.add(what);
      log(`proxy: refused ${what} (outside the scan target ${target.host})`);
    }
  };

  const server: Server = createServer(async (req: IncomingMessage, res) => {
    if (!(await ready.catch(() => false))) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('the scan may not attack');
      return;
    }
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
    const options: UpstreamOptions = {
      host: address,
      port: p,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      setHost: false,
    };
    if (session) {
      forwardWithSession(session, req, res, options, headers).catch(() => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      return;
    }
    const upstream = request({ ...options, headers }, (response) => {
      res.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });
  server.on('connect', async (req, socket, head) => {
    if (!(await ready.catch(() => false))) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\n\r\n');
      return;
    }
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
    carry: (carried) => {
      session = carried;
    },
    holdUntil: (until) => {
      ready = until;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type UpstreamOptions = { host: string; port: number; method?: string; path: string; setHost: false };

/**
 * Sends the engine's request with the session's headers; an answer showing the session lost is held back while the
 * agent logs in again, then the request goes once more with the new session (only a request sent with the newest
 * session can cause a login, so many answers of one expired session cause one).
 */
async function forwardWithSession(
  session: ProxySession,
  req: IncomingMessage,
  res: ServerResponse,
  options: UpstreamOptions,
  engineHeaders: Record<string, string | string[] | undefined>,
): Promise<void> {
  const body = await readBody(req);
  if (body === undefined) {
    res.writeHead(413, { 'content-type': 'text/plain' }).end('request body too large for the proxy');
    return;
  }
  for (let attempt = 0; ; attempt++) {
    const { headers: sessionHeaders, generation } = session.current();
    const { response, head, ended } = await exchange(options, withSession(engineHeaders, sessionHeaders), body);
    const judged = `${statusLine(response)}\r\n${headerLines(response)}\r\n\r\n${head.toString('utf8')}`;
    if (attempt === 0 && session.loggedOut(judged)) {
      const renewed = await session.renew(generation, `${options.method} ${options.path}`);
      if (renewed) {
        response.destroy();
        continue;
      }
    }
    const setCookies = response.headers['set-cookie'];
    if (setCookies?.length) session.cookiesSet(generation, setCookies);
    res.writeHead(response.statusCode ?? 502, response.headers);
    if (ended) res.end(head);
    else {
      res.write(head);
      response.pipe(res);
    }
    return;
  }
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        req.pause();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The engine's headers with the session's: its cookies replace the engine's of the same names, its token header wins. */
function withSession(
  engineHeaders: Record<string, string | string[] | undefined>,
  sessionHeaders: Record<string, string>,
): Record<string, string | string[] | undefined> {
  const out = { ...engineHeaders };
  // The answer is matched against the indicators as text: no compression.
  out['accept-encoding'] = 'identity';
  for (const [name, value] of Object.entries(sessionHeaders)) {
    if (name !== 'cookie') {
      out[name] = value;
      continue;
    }
    const sessionNames = new Set(cookiePairs(value).map(([cookieName]) => cookieName));
    const engineCookies = [out.cookie ?? []]
      .flat()
      .flatMap(cookiePairs)
      .filter(([cookieName]) => !sessionNames.has(cookieName));
    out.cookie = [...engineCookies.map(([n, v]) => `${n}=${v}`), value].join('; ');
  }
  return out;
}

export const cookiePairs = (header: string): [string, string][] =>
  header
    .split(';')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    });

/** One upstream exchange: the answer with the first part of its body read (the rest still to come). */
function exchange(
  options: UpstreamOptions,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
): Promise<{ response: IncomingMessage; head: Buffer; ended: boolean }> {
  // The body is whole: sent with its length (the engine's own framing is not kept).
  const sent = { ...headers };
  delete sent['transfer-encoding'];
  if (body.length || sent['content-length'] !== undefined) sent['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const upstream = request({ ...options, headers: sent }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (ended: boolean) => {
        response.off('data', onData);
        response.off('end', onEnd);
        if (!ended) response.pause();
        resolve({ response, head: Buffer.concat(chunks), ended });
      };
      const onData = (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= JUDGED_BODY_BYTES) done(false);
      };
      const onEnd = () => done(true);
      response.on('data', onData);
      response.on('end', onEnd);
      response.on('error', reject);
    });
    upstream.on('error', reject);
    upstream.end(body);
  });
}

const statusLine = (response: IncomingMessage) =>
  `HTTP/1.1 ${response.statusCode} ${response.statusMessage ?? ''}`.trimEnd();

const headerLines = (response: IncomingMessage) => {
  const lines: string[] = [];
  for (let i = 0; i + 1 < response.rawHeaders.length; i += 2)
    lines.push(`${response.rawHeaders[i].toLowerCase()}: ${response.rawHeaders[i + 1]}`);
  return lines.join('\r\n');
};
