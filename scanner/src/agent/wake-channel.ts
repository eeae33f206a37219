import WebSocket from 'ws';

// The agent's wake channel (docs/HOSTED-SCANS.md, Idle agents): a WebSocket to the service (`wakeUrl` of its
// registration) on which it is told `{"type":"wake"}` when a run is queued, ended or stopped in its organization.
// While it is open the idle agent polls every `wakePollSeconds` and at once when woken; while it is not (refused,
// closed, never opened) the agent long-polls as before, and the channel is opened again every `wakePollSeconds`.

/** API Gateway closes a WebSocket idle for 10 minutes: a message this often keeps it open (its MOCK `ping` route). */
const KEEPALIVE_MS = 4 * 60_000;
/** A connection attempt that has not opened by then counts as failed. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

export interface WakeChannelOptions {
  url: string;
  orgId: string;
  deviceId: string;
  token: () => Promise<string>;
  /** How long after a failed or closed connection it tries again (the registration's wakePollSeconds). */
  retryAfterMs: number;
  echo: (line: string) => void;
}

export interface WakeChannel {
  /** Whether the channel is open now. */
  readonly open: boolean;
  /** Resolves once the first connection attempt opened or failed. */
  ready: Promise<void>;
  /**
   * Resolves true at a wake (or when the channel opened, again: what was told meanwhile is lost), at once for one
   * since the last wait; false after `ms`, when the channel closes, or when `signal` aborts.
   */
  wait(ms: number, signal?: AbortSignal): Promise<boolean>;
  close(): void;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The channel's URL with the agent's organization and device, or why it is not used: the agent's token goes only
 * over TLS (`wss:`), or in the clear to its own machine (`ws:` on a loopback address, as `npm start` serves it).
 */
function channelUrl({ url, orgId, deviceId }: WakeChannelOptions): URL | string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `wakeUrl ${JSON.stringify(url.slice(0, 200))} is not a URL`;
  }
  if (parsed.protocol !== 'wss:' && !(parsed.protocol === 'ws:' && LOOPBACK.has(parsed.hostname)))
    return `wakeUrl ${parsed.protocol}//${parsed.host} is neither wss: nor a loopback ws: (the token is not sent there)`;
  parsed.searchParams.set('orgId', orgId);
  parsed.searchParams.set('deviceId', deviceId);
  return parsed;
}

export function openWakeChannel(options: WakeChannelOptions): WakeChannel {
  let socket: WebSocket | undefined;
  let open = false;
  let closed = false;
  let pending = false;
  let notify: ((woken: boolean) => void) | undefined;
  let keepalive: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let attempted = () => {};
  const ready = new Promise<void>((resolve) => (attempted = resolve));
  const wake = (woken: boolean) => {
    if (notify) notify(woken);
    else if (woken) pending = true;
  };
  const refused = (reason: string) => {
    options.echo(`wake channel: ${reason}; polling without it`);
    attempted();
  };
  const connect = async () => {
    const url = channelUrl(options);
    if (typeof url === 'string') return refused(url);
    const token = await options.token().catch(() => '');
    if (closed) return attempted();
    let ws: WebSocket;
    try {
      ws = socket = new WebSocket(url, {
        headers: { authorization: `Bearer ${token}` },
        handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      });
    } catch (error) {
      refused((error as Error).message);
      if (!closed) retry = setTimeout(() => void connect(), options.retryAfterMs).unref();
      return;
    }
    ws.on('open', () => {
      open = true;
      attempted();
      keepalive = setInterval(() => ws.send(JSON.stringify({ action: 'ping' })), KEEPALIVE_MS).unref();
      wake(true);
    });
    ws.on('message', (data) => {
      if (String(data).includes('"wake"')) wake(true);
    });
    ws.on('error', (error) => options.echo(`wake channel: ${error.message}; polling without it`));
    ws.on('close', () => {
      open = false;
      attempted();
      clearInterval(keepalive);
      wake(false);
      if (!closed) retry = setTimeout(() => void connect(), options.retryAfterMs).unref();
    });
  };
  void connect();
  return {
    get open() {
      return open;
    },
    ready,
    wait: (ms, signal) =>
      new Promise<boolean>((resolve) => {
        if (pending || !open || signal?.aborted) {
          const woken = pending;
          pending = false;
          return resolve(woken);
        }
        const done = (woken: boolean) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', aborted);
          notify = undefined;
          resolve(woken);
        };
        const aborted = () => done(false);
        const timer = setTimeout(() => done(false), ms);
        signal?.addEventListener('abort', aborted);
        notify = done;
      }),
    close() {
      closed = true;
      attempted();
      clearTimeout(retry);
      socket?.terminate();
    },
  };
}
