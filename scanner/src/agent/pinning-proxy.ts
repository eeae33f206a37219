// A forward proxy on loopback that the engine sends all its traffic through: it only reaches the scan target's
// host and port, always at the address resolved once when the scan started (no DNS rebinding), so a hosted scan
// cannot be turned toward metadata or private addresses by redirects, links or a second DNS answer.
// Once the agent logged in, the proxy also carries the session for the engine (docs/HOSTED-SCANS.md, Login): it adds
// the session's cookies and token to each request, and when an answer shows the session lost (loggedOutIndicator)
// it has the agent log in again and sends the request once more with the new session. For an HTTPS target it
// terminates the engine's TLS (CONNECT) with a certificate of the run's own authority (net/run-certificate.ts) and
// sends each request on to the target over TLS, checking the target's certificate as any client would.
import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createServer as createNetServer, isIP, type AddressInfo, type Socket } from 'node:net';
import { checkServerIdentity, createSecureContext, rootCertificates, TLSSocket } from 'node:tls';
import { runCertificate } from '../net/run-certificate.ts';
import { relayConnection, type RelayOptions } from './http-relay.ts';

/** The logged-in session the proxy carries for the engine (session-relay.ts). */
export interface ProxySession {
  /**
   * Whether answers are judged (the configuration has a loggedOutIndicator): only then does the proxy hold a request
   * and its answer to send it again after a login; otherwise both stream through with the session's headers.
   */
  watching: boolean;
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
  /** For an HTTPS target: the run's authority (PEM) that signed the certificate the proxy shows for the target. */
  authority?: string;
  /** From now on, the engine's requests carry this session. */
  carry(session: ProxySession): void;
  /**
   * Holds the engine's requests until `ready` settles: true lets them through, false (or a rejection) refuses
   * them (503), so an engine started early sends nothing to the target before the run may attack.
   */
  holdUntil(ready: Promise<boolean>): void;
  /**
   * The requests sent on to the target so far (each send again after a re-login counts), and those of them that
   * carried the session.
   */
  sent(): { requests: number; authenticated: number };
  /**
   * From now on until told otherwise, the proxy keeps a copy of each of the engine's exchanges that carried the
   * session and got a 2xx (the primary user's crawl, for the authorization phase: agent/authorization.ts).
   */
  record(on: boolean): void;
  /** The exchanges kept while recording (at most MAX_RECORDED, bodies cut at RECORDED_BODY_BYTES). */
  recorded(): RecordedExchange[];
  /**
   * Sends one request of the agent's own to the target, at its pinned address, with exactly `headers` (no session
   * added), and answers its status, headers and body (cut at RECORDED_BODY_BYTES). Not counted in `sent`.
   */
  replay(request: ReplayedRequest): Promise<ReplayedAnswer>;
  close(): Promise<void>;
}

/** One of the engine's exchanges as the proxy kept it: the engine's own headers, without the session's. */
export interface RecordedExchange {
  method: string;
  path: string;
  requestHeaders: Record<string, string | string[] | undefined>;
  requestBody: Buffer;
  status: number;
  responseHeaders: Record<string, string | string[] | undefined>;
  responseBody: Buffer;
}

export interface ReplayedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** How long the target may stay silent before the replay fails (none by default). */
  timeoutMs?: number;
}

export interface ReplayedAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** The most exchanges kept while recording, and how much of each body (a replay's answer is cut the same). */
const MAX_RECORDED = 1000;
export const RECORDED_BODY_BYTES = 64 * 1024;

export interface PinningProxyOptions {
  /** When the run's certificate expires (the run's deadline; an hour later by default). */
  notAfter?: Date;
  /** Certificates (PEM) trusted for the target besides Node's bundled authorities: a self-signed target's. */
  trustedCa?: string;
}

/** A request body the proxy keeps to send again after a re-login; the engine's are small forms and queries. */
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;
/** How much of an answer's body the loggedOutIndicator is matched against. */
const JUDGED_BODY_BYTES = 256 * 1024;

export async function startPinningProxy(
  target: URL,
  address: string,
  log: (line: string) => void,
  options: PinningProxyOptions = {},
): Promise<PinningProxy> {
  const secure = target.protocol === 'https:';
  const port = Number(target.port || (secure ? 443 : 80));
  const host = target.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  let session: ProxySession | undefined;
  // While held (holdUntil), requests wait for the answer; once it came it is kept, so a request let through waits
  // for nothing.
  let gate: boolean | Promise<boolean> = true;
  const allowed = (hostname: string, p: number) =>
    hostname.toLowerCase().replace(/^\[|\]$/g, '') === host && p === port;
  const refusal = onceEach(50, log);
  const refuse = (what: string) => refusal(what, `proxy: refused ${what} (outside the scan target ${target.host})`);
  const failure = onceEach(20, log);
  const upstreamFailed = (error: Error & { code?: string }) =>
    failure(
      error.code ?? error.message,
      `proxy: the target could not be reached: ${error.message}${error.code ? ` (${error.code})` : ''}`,
    );

  // An HTTPS target: the run's own certificate for the engine's side; the target's checked on the other side.
  const identity = secure ? await runCertificate(host, options.notAfter ?? new Date(Date.now() + 3600_000)) : undefined;
  const secureContext = identity && createSecureContext({ key: identity.key, cert: identity.chain });
  const { counted, sendsOn } = sendCounter();
  const upstream = upstreamOf(secure, host, options.trustedCa);
  const tape = recorder();

  const server: Server = createServer(async (req: IncomingMessage, res) => {
    if (!(typeof gate === 'boolean' ? gate : await gate)) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('the scan may not attack');
      return;
    }
    // A request inside a CONNECT tunnel names only its path: it is the target's.
    const tunnelled = (req.socket as TLSSocket).encrypted === true;
    let url: URL;
    try {
      url = new URL(req.url ?? '', tunnelled ? target.origin : undefined);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const p = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    if (url.protocol !== target.protocol || !allowed(url.hostname, p)) {
      refuse(`${req.method} ${url.origin}`);
      res.writeHead(403, { 'content-type': 'text/plain' }).end('outside the scan target');
      return;
    }
    // The target's name, whatever the client put in Host: the request is the target's, at the pinned address.
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host };
    delete headers['proxy-connection'];
    const sent: UpstreamOptions = { host: address, port: p, method: req.method, path: `${url.pathname}${url.search}` };
    const failed = (error: Error) => {
      upstreamFailed(error);
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    };
    const recording = session && tape.start(req.method ?? 'GET', sent.path, headers);
    if (session?.watching) {
      forwardWithSession(session, upstream, req, res, sent, headers, () => sendsOn(true), recording).catch(failed);
      return;
    }
    sendsOn(session !== undefined);
    forwardStreaming(session, upstream, req, res, sent, headers, recording).on('error', failed);
  });
  // CONNECT: only to an HTTPS target's host and port, and the proxy answers it itself, with the run's certificate.
  server.on('connect', (req, socket: Socket, head) =>
    tunnel(server, { req, socket, head }, { gate: () => gate, secureContext, allowed, refuse }),
  );
  // The engine's connections: relayed (http-relay.ts) while the proxy has nothing to add to a request or keep of an
  // answer (a plain-HTTP target, no session, no recording), else served by the Node server above.
  const { front, unrelay } = frontDoor(server, () =>
    secure || session || tape.on
      ? undefined
      : { target, address, port, allowed, gate: () => gate, sendsOn: () => sendsOn(false), refuse, upstreamFailed },
  );
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const { port: proxyPort } = front.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    ...(identity ? { authority: identity.authority } : {}),
    carry: (carried) => {
      session = carried;
      unrelay();
    },
    holdUntil: (until) => {
      const held = until.catch(() => false);
      gate = held;
      void held.then((go) => {
        if (gate === held) gate = go;
      });
    },
    sent: () => ({ ...counted }),
    record: (on) => {
      tape.on = on;
      if (on) unrelay();
    },
    recorded: () => [...tape.exchanges],
    replay: async (request) => {
      if (!(typeof gate === 'boolean' ? gate : await gate)) throw new Error('the scan may not attack');
      return replayOne(upstream, { host: address, port, method: request.method, path: request.path }, target, request);
    },
    close: () =>
      new Promise<void>((resolve) => {
        unrelay();
        server.closeAllConnections();
        front.close(() => resolve());
      }),
  };
}

/**
 * CONNECT: only to an HTTPS target's host and port, answered by the proxy itself, which terminates the engine's TLS
 * with the run's certificate and serves the tunnel's requests as its own (the Node server).
 */
async function tunnel(
  server: Server,
  { req, socket, head }: { req: IncomingMessage; socket: Socket; head: Buffer },
  options: {
    gate: () => boolean | Promise<boolean>;
    secureContext: ReturnType<typeof createSecureContext> | undefined;
    allowed: (hostname: string, port: number) => boolean;
    refuse: (what: string) => void;
  },
) {
  socket.on('error', () => socket.destroy());
  if (!(await options.gate())) {
    socket.end('HTTP/1.1 503 Service Unavailable\r\n\r\n');
    return;
  }
  const [hostname, portText] = (req.url ?? '').split(/:(?=\d+$)/);
  const secureContext = options.secureContext;
  if (!secureContext || !options.allowed(hostname, Number(portText))) {
    options.refuse(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    return;
  }
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (head.length) socket.unshift(head);
  const tls = new TLSSocket(socket, { isServer: true, secureContext, ALPNProtocols: ['http/1.1'] });
  tls.on('error', () => tls.destroy());
  server.emit('connection', tls);
}

/**
 * The proxy's listening socket: each of the engine's connections is relayed with the options `relaying` answers when
 * it comes (none: the Node server serves it), or handed to the Node server by the relay. `unrelay` closes the
 * connections relayed so far: a session or a recording starts before the engine does, so a connection relayed before
 * then (none) never goes on without what the proxy adds; the engine's next one is served by the Node server.
 */
function frontDoor(server: Server, relaying: () => Omit<RelayOptions, 'handOver'> | undefined) {
  const relayed = new Set<{ destroy(): void }>();
  const front = createNetServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    const options = relaying();
    if (!options) return void server.emit('connection', socket);
    const relay = relayConnection(socket, {
      ...options,
      handOver: (handed: Socket) => {
        relayed.delete(relay);
        server.emit('connection', handed);
      },
    });
    relayed.add(relay);
    socket.once('close', () => relayed.delete(relay));
  });
  const unrelay = () => {
    for (const relay of relayed) relay.destroy();
    relayed.clear();
  };
  return { front, unrelay };
}

/** The requests sent on to the target, and those of them that carried the session. */
function sendCounter() {
  const counted = { requests: 0, authenticated: 0 };
  const sendsOn = (withSession: boolean) => {
    counted.requests++;
    if (withSession) counted.authenticated++;
  };
  return { counted, sendsOn };
}

/** The copies the proxy keeps while recording: 2xx answers of requests that carried the session. */
function recorder() {
  const tape = { on: false, exchanges: [] as RecordedExchange[], start };
  function start(method: string, path: string, requestHeaders: RecordedExchange['requestHeaders']) {
    if (!tape.on || tape.exchanges.length >= MAX_RECORDED) return undefined;
    const request = bounded();
    const response = bounded();
    return {
      request: request.add,
      response: response.add,
      done(answer: IncomingMessage, body?: Buffer) {
        const status = answer.statusCode ?? 0;
        if (status < 200 || status > 299 || tape.exchanges.length >= MAX_RECORDED) return;
        if (body) response.add(body);
        tape.exchanges.push({
          method,
          path,
          requestHeaders,
          requestBody: request.bytes(),
          status,
          responseHeaders: answer.headers,
          responseBody: response.bytes(),
        });
      },
    };
  }
  return tape;
}

/** Chunks kept up to RECORDED_BODY_BYTES. */
function bounded() {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    add: (chunk: Buffer) => {
      if (size >= RECORDED_BODY_BYTES) return;
      chunks.push(chunk.subarray(0, RECORDED_BODY_BYTES - size));
      size += chunk.length;
    },
    bytes: () => Buffer.concat(chunks),
  };
}

type Recording = NonNullable<ReturnType<ReturnType<typeof recorder>['start']>>;

/** Logs a line for each distinct `what`, up to `limit` of them (the proxy logs nothing per request). */
function onceEach(limit: number, log: (line: string) => void) {
  const seen = new Set<string>();
  return (what: string, line: string) => {
    if (seen.size >= limit || seen.has(what)) return;
    seen.add(what);
    log(line);
  };
}

/** The target's side: connections kept alive; over TLS, the target's certificate checked against its name. */
function upstreamOf(secure: boolean, host: string, trustedCa: string | undefined): Upstream {
  if (!secure) {
    const agent = new HttpAgent({ keepAlive: true });
    return (sent, onResponse) => httpRequest({ ...sent, agent }, onResponse);
  }
  const agent = new HttpsAgent({ keepAlive: true });
  return (sent, onResponse) =>
    httpsRequest(
      {
        ...sent,
        agent,
        ...(isIP(host) ? {} : { servername: host }),
        // The name checked is the target's, whatever address it is reached at.
        checkServerIdentity: (_name, certificate) => checkServerIdentity(host, certificate),
        ...(trustedCa ? { ca: [...rootCertificates, trustedCa] } : {}),
      },
      onResponse,
    );
}

/** Sends one request to the target, at its pinned address, over HTTP or TLS as the target is reached. */
type Upstream = (options: RequestOptions, onResponse: (response: IncomingMessage) => void) => ClientRequest;

type UpstreamOptions = { host: string; port: number; method?: string; path: string };

/**
 * Streams the engine's request and its answer through, with the session's headers when there is a session (a kept
 * copy when recording); answers the upstream request, whose errors the caller handles.
 */
function forwardStreaming(
  session: ProxySession | undefined,
  upstream: Upstream,
  req: IncomingMessage,
  res: ServerResponse,
  sent: UpstreamOptions,
  headers: Record<string, string | string[] | undefined>,
  recording: Recording | undefined,
): ClientRequest {
  const carried = session && { session, ...session.current() };
  const forwarded = upstream(
    { ...sent, setHost: false, headers: carried ? withSession(headers, carried.headers) : headers },
    (response) => {
      const setCookies = response.headers['set-cookie'];
      if (carried && setCookies?.length) carried.session.cookiesSet(carried.generation, setCookies);
      res.writeHead(response.statusCode ?? 502, response.headers);
      if (recording) {
        response.on('data', (chunk: Buffer) => recording.response(chunk));
        response.on('end', () => recording.done(response));
      }
      response.pipe(res);
    },
  );
  if (recording) req.on('data', (chunk: Buffer) => recording.request(chunk));
  req.pipe(forwarded);
  return forwarded;
}

/** One request of the agent's own (the authorization phase's replays), its answer read whole up to its first part. */
async function replayOne(
  upstream: Upstream,
  options: UpstreamOptions,
  target: URL,
  request: ReplayedRequest,
): Promise<ReplayedAnswer> {
  const { response, head, ended } = await exchange(
    upstream,
    options,
    { ...request.headers, host: target.host, 'accept-encoding': 'identity' },
    request.body,
    request.timeoutMs,
  );
  if (!ended) response.destroy();
  return { status: response.statusCode ?? 502, headers: response.headers, body: head.subarray(0, RECORDED_BODY_BYTES) };
}

/**
 * Sends the engine's request with the session's headers; an answer showing the session lost is held back while the
 * agent logs in again, then the request goes once more with the new session (only a request sent with the newest
 * session can cause a login, so many answers of one expired session cause one).
 */
async function forwardWithSession(
  session: ProxySession,
  upstream: Upstream,
  req: IncomingMessage,
  res: ServerResponse,
  options: UpstreamOptions,
  engineHeaders: Record<string, string | string[] | undefined>,
  sendsOn: () => void,
  recording: Recording | undefined,
): Promise<void> {
  const body = await readBody(req);
  if (body === undefined) {
    res.writeHead(413, { 'content-type': 'text/plain' }).end('request body too large for the proxy');
    return;
  }
  for (let attempt = 0; ; attempt++) {
    const { headers: sessionHeaders, generation } = session.current();
    sendsOn();
    const { response, head, ended } = await exchange(
      upstream,
      options,
      // The answer is matched against the indicators as text: no compression.
      { ...withSession(engineHeaders, sessionHeaders), 'accept-encoding': 'identity' },
      body,
    );
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
    if (recording) {
      recording.request(body);
      recording.done(response, head);
    }
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
  upstream: Upstream,
  options: UpstreamOptions,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  timeoutMs?: number,
): Promise<{ response: IncomingMessage; head: Buffer; ended: boolean }> {
  // The body is whole: sent with its length (the engine's own framing is not kept).
  const sent = { ...headers };
  delete sent['transfer-encoding'];
  if (body.length || sent['content-length'] !== undefined) sent['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const forwarded = upstream({ ...options, setHost: false, headers: sent }, (response) => {
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
    forwarded.on('error', reject);
    if (timeoutMs) forwarded.setTimeout(timeoutMs, () => forwarded.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    forwarded.end(body);
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
