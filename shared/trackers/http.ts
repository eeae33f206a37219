import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { config } from '../config.ts';
import { ReceiverRefused, ReceiverUnresolved, resolveReceiver, type PinnedAddress } from '../outbound/receivers.ts';
import { TrackerRetry, TrackerFailure } from './model.ts';

// One request to an issue tracker's REST API (docs/TRACKERS.md, Delivery): the host resolved once, checked as a
// webhook receiver is (docs/WEBHOOKS.md, Receivers) and the connection pinned to that address; one time limit on the
// whole exchange; at most MAX_ANSWER_BYTES of the answer read; redirects not followed. The outcome is classified
// for the queue: a retry (429 with its Retry-After, 5xx, no answer) or a failure for good (refused, other 4xx).

const MAX_ANSWER_BYTES = 1024 * 1024;

export interface TrackerAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The parsed JSON (undefined for an empty answer): the clients read the parts they need, checking their types. */
  body: unknown;
}

/** Retry-After as seconds or an HTTP date, in ms from now (0 when absent or unreadable). */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return 0;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? 0 : Math.max(0, at - now);
}

/**
 * Sends `method url` with a JSON body (if any) and answers the parsed JSON. `expected` statuses are returned;
 * everything else throws TrackerRetry or TrackerFailure, with a message naming the call but no credential.
 */
export async function trackerCall(options: {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  allowPrivateNetworks: boolean;
  expected?: number[];
}): Promise<TrackerAnswer> {
  const { method, url: raw } = options;
  const url = new URL(raw);
  const what = `${method} ${url.origin}${url.pathname}`;
  let pinned: PinnedAddress;
  try {
    pinned = await resolveReceiver(raw, options.allowPrivateNetworks);
  } catch (error) {
    if (error instanceof ReceiverUnresolved) throw new TrackerRetry(`${what}: ${error.message}`);
    if (error instanceof ReceiverRefused) throw new TrackerFailure(`${what}: refused: ${error.message}`);
    throw error;
  }
  const lookup: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as (error: null, addresses: PinnedAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': 'hawk-api-trackers/1',
    ...options.headers,
    ...(payload !== undefined
      ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
      : {}),
  };
  const answer = await new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>(
    (resolve, reject) => {
      let settled = false;
      const settle = (
        error: Error | undefined,
        value?: { status: number; headers: IncomingHttpHeaders; text: string },
      ) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.destroy();
        if (error) reject(error);
        else resolve(value!);
      };
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method, headers, lookup });
      const timer = setTimeout(
        () => settle(new TrackerRetry(`${what}: no complete answer within ${config.webhookTimeoutMs} ms`)),
        config.webhookTimeoutMs,
      );
      request.on('error', (error) => settle(new TrackerRetry(`${what}: ${error.message}`)));
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES)
            settle(new TrackerRetry(`${what}: the answer exceeds ${MAX_ANSWER_BYTES} bytes`));
          else chunks.push(chunk);
        });
        response.on('end', () =>
          settle(undefined, {
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', (error) => settle(new TrackerRetry(`${what}: ${error.message}`)));
      });
      request.end(payload);
    },
  );
  const { status } = answer;
  const expected = options.expected ?? [200, 201, 204];
  if (expected.includes(status)) {
    let body: unknown;
    try {
      body = answer.text ? JSON.parse(answer.text) : undefined;
    } catch {
      throw new TrackerRetry(`${what}: answered ${status} with a body that is not JSON`);
    }
    return { status, headers: answer.headers, body };
  }
  const excerpt = answer.text.slice(0, 300).replace(/\s+/g, ' ');
  if (status === 429)
    throw new TrackerRetry(`${what}: rate limited (429)`, retryAfterMs(answer.headers['retry-after']));
  // GitHub's primary rate limit: 403 (or 429) with no requests left until x-ratelimit-reset (epoch seconds).
  if (status === 403 && answer.headers['x-ratelimit-remaining'] === '0') {
    const reset = Number(answer.headers['x-ratelimit-reset']) * 1000;
    throw new TrackerRetry(`${what}: rate limited (403)`, Number.isFinite(reset) ? Math.max(0, reset - Date.now()) : 0);
  }
  if (status >= 500 || status === 408)
    throw new TrackerRetry(`${what}: answered ${status}`, retryAfterMs(answer.headers['retry-after']));
  throw new TrackerFailure(`${what}: answered ${status}: ${excerpt}`);
}
