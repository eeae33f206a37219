// The pinning proxy's fast path (pinning-proxy.ts) for a plain-HTTP target while it carries no session and keeps no
// copies: each of the engine's connections is relayed on a connection of its own to the pinned address. Every
// request's head is read and checked as on the proxy's other path (the target's host and port only, its Host
// header, the hold before the attack), then written on in origin form; the target's answers pass through as they
// came, read only for where each ends. Node's HTTP server and client cost about 0.6 ms of CPU a request on the
// bench's machine, a relay about 0.2 ms: a hosted scan's requests go through one after the other, so that is
// the hosted scan's overhead over its engine alone (docs/HOSTED-SCANS.md, Coverage).
// A request the relay does not read itself (CONNECT, an upgrade, Expect, a chunked body, HTTP/1.0) is handed with
// its connection to the proxy's Node server once every answer before it went through; one it cannot read at all is
// answered 400 and its connection closed.
import { connect, type Socket } from 'node:net';

export interface RelayOptions {
  target: URL;
  /** The pinned address and the target's port. */
  address: string;
  port: number;
  /** Whether a request may reach `hostname:port` (the scan target's host and port only). */
  allowed(hostname: string, port: number): boolean;
  /** Whether the engine may attack: the proxy's hold (a promise while held). */
  gate(): boolean | Promise<boolean>;
  /** A request sent on to the target (counted). */
  sendsOn(): void;
  /** A request refused: outside the target (logged once per origin). */
  refuse(what: string): void;
  upstreamFailed(error: Error & { code?: string }): void;
  /** The connection goes on with the proxy's Node server, its unread bytes put back. */
  handOver(socket: Socket): void;
}

/** The largest request or answer head the relay reads (Node's default maxHeaderSize). */
const MAX_HEAD_BYTES = 16 * 1024;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;
const FORBIDDEN_IN_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/; // eslint-disable-line no-control-regex -- the point
const LONE_CR_OR_LF = /\r(?!\n)|(?<!\r)\n/;
const HEAD_END = Buffer.from('\r\n\r\n');

/** A request head as the relay reads it, or why it cannot. */
type RequestHead =
  | { kind: 'forward'; method: string; url: URL; lines: string[]; length: number }
  | { kind: 'hand over' }
  | { kind: 'bad'; status: number; why: string };

/** Reads one request head (latin1, without its final CRLFCRLF). */
export function readRequestHead(head: string): RequestHead {
  if (LONE_CR_OR_LF.test(head)) return { kind: 'bad', status: 400, why: 'a line break that is not CRLF' };
  const [requestLine, ...headerLines] = head.split('\r\n');
  const parts = requestLine.split(' ');
  if (
    parts.length !== 3 ||
    !TOKEN.test(parts[0]) ||
    !/^[\x21-\x7e]+$/.test(parts[1]) ||
    !/^HTTP\/1\.[01]$/.test(parts[2])
  )
    return { kind: 'bad', status: 400, why: 'a request line that is not HTTP/1.x' };
  const [method, requestTarget, version] = parts;
  const lines: string[] = [];
  let length: number | undefined;
  let handOver = method === 'CONNECT' || version !== 'HTTP/1.1';
  let host = false;
  for (const line of headerLines) {
    const header = HEADER.exec(line);
    if (!header || FORBIDDEN_IN_VALUE.test(header[2])) return { kind: 'bad', status: 400, why: 'a malformed header' };
    const name = header[1].toLowerCase();
    if (name === 'content-length') {
      if (length !== undefined || !/^\d{1,15}$/.test(header[2]))
        return { kind: 'bad', status: 400, why: 'a Content-Length that is not one number' };
      length = Number(header[2]);
    }
    if (name === 'transfer-encoding' || name === 'expect' || name === 'upgrade') handOver = true;
    if (name === 'host') host = true;
    if (name !== 'host' && name !== 'proxy-connection') lines.push(`${header[1]}: ${header[2]}`);
  }
  if (handOver) return { kind: 'hand over' };
  // As Node's server answers it (requireHostHeader): whatever it names, the request goes to the target's host.
  if (!host) return { kind: 'bad', status: 400, why: 'an HTTP/1.1 request without a Host header' };
  let url: URL;
  try {
    url = new URL(requestTarget);
  } catch {
    return { kind: 'bad', status: 400, why: 'a request target that is not an absolute URL' };
  }
  return { kind: 'forward', method, url, lines, length: length ?? 0 };
}

/** Where an answer's body ends, read from its head (RFC 9112, 6.3), for the request method it answers. */
export function answerFraming(
  head: string,
  method: string,
): { status: number; body: 'none' | 'chunked' | 'close' | number } | undefined {
  if (LONE_CR_OR_LF.test(head)) return undefined;
  const [statusLine, ...headerLines] = head.split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine);
  if (!status) return undefined;
  const code = Number(status[1]);
  let length: number | undefined;
  let codings: string | undefined;
  for (const line of headerLines) {
    const header = HEADER.exec(line);
    if (!header) return undefined;
    const name = header[1].toLowerCase();
    if (name === 'transfer-encoding') codings = `${codings ? `${codings},` : ''}${header[2]}`;
    if (name === 'content-length') {
      if (!/^\d{1,15}$/.test(header[2]) || (length !== undefined && length !== Number(header[2]))) return undefined;
      length = Number(header[2]);
    }
  }
  if (code === 101) return undefined; // the relay never asks for an upgrade
  if (code < 200 || code === 204 || code === 304 || method === 'HEAD') return { status: code, body: 'none' };
  if (codings !== undefined) {
    const last = codings.split(',').pop()!.trim().toLowerCase();
    return { status: code, body: last === 'chunked' ? 'chunked' : 'close' };
  }
  return { status: code, body: length ?? 'close' };
}

/** Relays one of the engine's connections (see the file's head); answers how to end it. */
export function relayConnection(client: Socket, options: RelayOptions): { destroy(): void } {
  const relay = new Relay(client, options);
  return { destroy: () => relay.destroy() };
}

class Relay {
  private pending: Buffer = Buffer.alloc(0);
  /** Bytes of the current request's body still to send on. */
  private bodyLeft = 0;
  /** The methods of the requests sent on whose answers have not all gone through, oldest first. */
  private readonly waiting: string[] = [];
  private upstream: Socket | undefined;
  private readonly answer = new AnswerReader();
  /** What runs once every answer owed went through (a local answer, a hand-over, the engine's end). */
  private idle: (() => void)[] = [];
  /** Waiting for the hold; reading no more (a local answer or a hand-over is coming). */
  private held = false;
  private stopped = false;
  private done = false;
  /** Bytes of the current answer that went through. */
  private answerBytes = 0;
  private clientFull = false;
  private upstreamFull = false;

  constructor(
    private readonly client: Socket,
    private readonly options: RelayOptions,
  ) {
    client.on('data', this.onClientData);
    client.on('end', this.onClientEnd);
    client.on('error', this.onClientGone);
    client.on('close', this.onClientGone);
  }

  destroy() {
    if (this.done) return;
    this.done = true;
    this.client.destroy();
    this.upstream?.destroy();
  }

  private readonly onClientData = (chunk: Buffer) => {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.readRequests();
  };

  /** The engine sent all it will: the connection ends once the answers owed went through. */
  private readonly onClientEnd = () => this.whenIdle(() => this.destroy());
  private readonly onClientGone = () => this.destroy();

  /** Sends on the requests read so far, their bodies as they come. */
  private readRequests() {
    while (!this.done && !this.held && !this.stopped && this.pending.length) {
      if (this.bodyLeft > 0) {
        const part = this.pending.subarray(0, this.bodyLeft);
        this.pending = this.pending.subarray(part.length);
        this.bodyLeft -= part.length;
        this.send(part);
        continue;
      }
      const end = this.pending.indexOf(HEAD_END);
      if (end < 0 || end > MAX_HEAD_BYTES) {
        if (this.pending.length > MAX_HEAD_BYTES) this.answerLocally(431, 'request head too large');
        return;
      }
      const gate = this.options.gate();
      if (gate instanceof Promise) return this.hold(gate);
      if (!gate) return this.answerLocally(503, 'the scan may not attack');
      this.sendRequest(readRequestHead(this.pending.subarray(0, end).toString('latin1')), end);
    }
  }

  /** The engine's requests wait for the hold's answer. */
  private hold(gate: Promise<boolean>) {
    this.held = true;
    this.client.pause();
    void gate.then(() => {
      this.held = false;
      if (!this.stopped && !this.upstreamFull) this.client.resume();
      this.readRequests();
    });
  }

  private sendRequest(head: RequestHead, end: number) {
    if (head.kind === 'hand over') return this.handOver();
    if (head.kind === 'bad') return this.answerLocally(head.status, head.why);
    const { url } = head;
    if (url.protocol !== this.options.target.protocol || !this.options.allowed(url.hostname, Number(url.port || 80))) {
      this.options.refuse(`${head.method} ${url.origin}`);
      return this.answerLocally(403, 'outside the scan target');
    }
    this.pending = this.pending.subarray(end + HEAD_END.length);
    this.bodyLeft = head.length;
    this.waiting.push(head.method);
    this.options.sendsOn();
    const lines = [`${head.method} ${url.pathname}${url.search} HTTP/1.1`, ...head.lines];
    this.send(Buffer.from(`${lines.join('\r\n')}\r\nhost: ${this.options.target.host}\r\n\r\n`, 'latin1'));
  }

  private send(bytes: Buffer) {
    this.upstream ??= this.connectUpstream();
    if (this.upstream.write(bytes) || this.upstreamFull) return;
    this.upstreamFull = true;
    this.client.pause();
    this.upstream.once('drain', () => {
      this.upstreamFull = false;
      if (!this.held && !this.stopped) this.client.resume();
    });
  }

  private connectUpstream(): Socket {
    const upstream = connect({ host: this.options.address, port: this.options.port, noDelay: true });
    upstream.on('data', (chunk: Buffer) => this.onAnswerData(chunk));
    upstream.on('end', () => this.onUpstreamEnd());
    upstream.on('error', (error: Error & { code?: string }) => {
      this.options.upstreamFailed(error);
      this.onUpstreamEnd();
    });
    return upstream;
  }

  /** The target's bytes go through as they came; each answer's end lets what waits for it go on. */
  private onAnswerData(chunk: Buffer) {
    let rest: Buffer | undefined = chunk;
    while (rest?.length && !this.done) {
      const method = this.waiting[0];
      if (method === undefined) return this.destroy(); // an answer to no request
      const read = this.answer.read(rest, method);
      if (read.failed) return this.failAnswer();
      if (read.through.length) this.toClient(read.through);
      rest = read.rest;
      if (read.complete) this.answered();
    }
  }

  private toClient(bytes: Buffer) {
    this.answerBytes += bytes.length;
    if (this.client.write(bytes) || this.clientFull) return;
    this.clientFull = true;
    this.upstream?.pause();
    this.client.once('drain', () => {
      this.clientFull = false;
      this.upstream?.resume();
    });
  }

  private answered() {
    this.waiting.shift();
    this.answerBytes = 0;
    if (this.waiting.length) return;
    const idle = this.idle;
    this.idle = [];
    for (const then of idle) then();
  }

  /**
   * The target closed its side: an answer read to its close ends there, and so does the engine's connection, as it
   * would have with the target itself; any other answer still owed fails (502 if nothing of it went through).
   */
  private onUpstreamEnd() {
    if (this.done) return;
    if (this.waiting.length && !this.answer.endsAtClose()) return this.failAnswer();
    if (this.waiting.length) this.answered();
    this.done = true;
    this.client.end();
    this.upstream?.destroy();
  }

  /** An answer the relay cannot read, or a target gone before answering: 502 when nothing of it went through. */
  private failAnswer() {
    if (this.done) return;
    this.done = true;
    this.upstream?.destroy();
    if (this.answerBytes) this.client.destroy();
    else this.client.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  }

  /** Runs `then` once every answer owed went through (at once when none is). */
  private whenIdle(then: () => void) {
    if (this.waiting.length) this.idle.push(then);
    else then();
  }

  /** Answers the request itself, once every answer before it went through, and closes the connection. */
  private answerLocally(status: number, text: string) {
    this.stop();
    this.whenIdle(() => {
      if (this.done) return;
      this.done = true;
      this.upstream?.destroy();
      this.client.end(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\ncontent-type: text/plain\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      );
    });
  }

  /** The connection goes to the proxy's Node server with its unread bytes, once every answer went through. */
  private handOver() {
    this.stop();
    this.whenIdle(() => {
      if (this.done) return;
      this.done = true;
      this.upstream?.destroy();
      this.client.off('data', this.onClientData);
      this.client.off('end', this.onClientEnd);
      this.client.off('error', this.onClientGone);
      this.client.off('close', this.onClientGone);
      if (this.pending.length) this.client.unshift(this.pending);
      this.options.handOver(this.client);
      this.client.resume();
    });
  }

  /** Nothing more is read from the engine. */
  private stop() {
    this.stopped = true;
    this.client.pause();
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  431: 'Request Header Fields Too Large',
  503: 'Service Unavailable',
};

/** Reads the target's answers for where each ends, passing every byte through. */
class AnswerReader {
  private head: Buffer | undefined = Buffer.alloc(0);
  private body: 'none' | 'chunked' | 'close' | number = 'none';
  /** In a chunked body: the bytes of the chunk's data (and its CRLF) still to come, or the size line being read. */
  private chunkLeft = 0;
  private line = '';
  private trailer = false;

  endsAtClose() {
    return this.head === undefined && this.body === 'close';
  }

  /** Reads `bytes` of the answer to `method`: what goes through, whether the answer is complete, what follows it. */
  read(bytes: Buffer, method: string): { through: Buffer; complete: boolean; rest?: Buffer; failed?: true } {
    if (this.head !== undefined) {
      const joined = this.head.length ? Buffer.concat([this.head, bytes]) : bytes;
      const end = joined.indexOf(HEAD_END);
      if (end < 0) {
        if (joined.length > MAX_HEAD_BYTES) return { through: Buffer.alloc(0), complete: false, failed: true };
        this.head = joined;
        return { through: Buffer.alloc(0), complete: false };
      }
      const framing = answerFraming(joined.subarray(0, end).toString('latin1'), method);
      if (!framing) return { through: Buffer.alloc(0), complete: false, failed: true };
      const headBytes = joined.subarray(0, end + HEAD_END.length);
      const rest = joined.subarray(end + HEAD_END.length);
      if (framing.status < 200 && framing.body === 'none') {
        // An interim answer (100, 103): the final one follows for the same request.
        this.head = Buffer.alloc(0);
        return { through: headBytes, complete: false, rest };
      }
      this.head = undefined;
      this.body = framing.body;
      this.chunkLeft = 0;
      this.line = '';
      this.trailer = false;
      if (this.body === 'none' || this.body === 0) return this.completed(headBytes, rest);
      const after = this.readBody(rest);
      return after.failed ? after : { ...after, through: Buffer.concat([headBytes, after.through]) };
    }
    return this.readBody(bytes);
  }

  private completed(through: Buffer, rest: Buffer) {
    this.head = Buffer.alloc(0);
    return { through, complete: true, rest };
  }

  private readBody(bytes: Buffer): { through: Buffer; complete: boolean; rest?: Buffer; failed?: true } {
    if (this.body === 'close') return { through: bytes, complete: false };
    if (typeof this.body === 'number') {
      const through = bytes.subarray(0, this.body);
      this.body -= through.length;
      return this.body === 0 ? this.completed(through, bytes.subarray(through.length)) : { through, complete: false };
    }
    return this.readChunked(bytes);
  }

  /** A chunked body: size lines, data with its CRLF, then the trailer's lines up to an empty one. */
  private readChunked(bytes: Buffer): { through: Buffer; complete: boolean; rest?: Buffer; failed?: true } {
    let at = 0;
    while (at < bytes.length) {
      if (this.chunkLeft > 0) {
        const take = Math.min(this.chunkLeft, bytes.length - at);
        this.chunkLeft -= take;
        at += take;
        continue;
      }
      const lineEnd = bytes.indexOf(0x0a, at);
      if (lineEnd < 0) {
        this.line += bytes.toString('latin1', at);
        if (this.line.length > MAX_HEAD_BYTES) return { through: Buffer.alloc(0), complete: false, failed: true };
        return { through: bytes, complete: false };
      }
      const line = this.line + bytes.toString('latin1', at, lineEnd + 1);
      this.line = '';
      at = lineEnd + 1;
      if (!line.endsWith('\r\n')) return { through: Buffer.alloc(0), complete: false, failed: true };
      const text = line.slice(0, -2);
      if (this.trailer) {
        if (text === '') return this.completed(bytes.subarray(0, at), bytes.subarray(at));
        continue;
      }
      const size = /^([0-9A-Fa-f]{1,12})(?:[ \t]*;.*)?$/.exec(text);
      if (!size) return { through: Buffer.alloc(0), complete: false, failed: true };
      const n = parseInt(size[1], 16);
      if (n === 0) this.trailer = true;
      else this.chunkLeft = n + 2; // its data and the CRLF after it
    }
    return { through: bytes, complete: false };
  }
}
