import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { config } from '../config.ts';
import { RESPONSE_EXCERPT_CHARS, type DeliveryAttempt } from './model.ts';
import { ReceiverRefused, ReceiverUnresolved, resolveReceiver, type PinnedAddress } from '../outbound/receivers.ts';

// One POST of a delivery to its receiver (docs/WEBHOOKS.md, Delivery): signed, pinned to the address checked, with
// a time limit on the whole exchange, and at most RESPONSE_EXCERPT_CHARS of the answer read.

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. */
export function signature(secret: string, body: string, timestampSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${v1}`;
}

export interface Outgoing {
  url: string;
  body: string;
  event: string;
  /** The event's id: the same on a redelivery, so a receiver can drop an event it already handled. */
  eventId: string;
  deliveryId: string;
  secret: string;
  customHeader?: { name: string; value: string };
  allowPrivateNetworks: boolean;
}

/** The longest Retry-After honoured: a receiver cannot park a delivery for longer than this. */
export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

/**
 * The wait a Retry-After header asks for, in ms: delay-seconds or an HTTP date (RFC 9110, section 10.2.3), at most
 * MAX_RETRY_AFTER_MS; undefined when absent or unreadable. Slack answers a rate-limited incoming webhook 429 with
 * Retry-After in seconds (https://api.slack.com/apis/rate-limits).
 */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  // An HTTP date only in its one current form (IMF-fixdate): Date.parse alone would read "1.5" as a date in 2001.
  const ms = /^\d+$/.test(value)
    ? Number(value) * 1000
    : /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value)
      ? Date.parse(value) - now
      : NaN;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

/** Sends the delivery once; never throws: the attempt says what happened. */
export async function send(outgoing: Outgoing): Promise<DeliveryAttempt> {
  const at = Date.now();
  const failed = (error: string, statusCode = 0, responseExcerpt = ''): DeliveryAttempt => ({
    at,
    statusCode,
    latencyMs: Date.now() - at,
    error,
    responseExcerpt,
  });
  let pinned;
  try {
    pinned = await resolveReceiver(outgoing.url, outgoing.allowPrivateNetworks);
  } catch (error) {
    // A refused address is final (until an owner allows it); a name that does not resolve may resolve later.
    if (error instanceof ReceiverRefused && !(error instanceof ReceiverUnresolved))
      return failed(`refused: ${error.message}`);
    return failed(error instanceof Error ? error.message : String(error));
  }
  const url = new URL(outgoing.url);
  // The connection goes to the checked address whatever the name resolves to now; TLS still verifies the name.
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (error: null, addresses: PinnedAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'hawk-api-webhooks/1',
    'x-hawk-event': outgoing.event,
    'x-hawk-delivery': outgoing.deliveryId,
    'x-hawk-event-id': outgoing.eventId,
    'x-hawk-signature': signature(outgoing.secret, outgoing.body, Math.floor(Date.now() / 1000)),
    ...(outgoing.customHeader ? { [outgoing.customHeader.name]: outgoing.customHeader.value } : {}),
  };
  return new Promise<DeliveryAttempt>((resolve) => {
    let settled = false;
    const settle = (attempt: DeliveryAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(attempt);
    };
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(outgoing.body)) },
      lookup,
    });
    // One bound on the whole exchange: a receiver that trickles its answer is cut off like one that never answers.
    const timer = setTimeout(
      () => settle(failed(`no complete answer within ${config.webhookTimeoutMs} ms`)),
      config.webhookTimeoutMs,
    );
    request.on('error', (error) => settle(failed(error.message)));
    request.on('response', (response) => {
      let excerpt = '';
      const finish = () => {
        const statusCode = response.statusCode ?? 0;
        const ok = statusCode >= 200 && statusCode < 300;
        const wait = ok ? undefined : retryAfterMs(response.headers['retry-after']);
        settle(
          ok
            ? { at, statusCode, latencyMs: Date.now() - at, responseExcerpt: excerpt }
            : {
                ...failed(`the receiver answered ${statusCode}`, statusCode, excerpt),
                ...(wait !== undefined ? { retryAfterMs: wait } : {}),
              },
        );
      };
      response.setEncoding('utf8');
      // Only the excerpt is read: past it the connection is closed, whatever the receiver still sends.
      response.on('data', (chunk: string) => {
        excerpt += chunk.slice(0, RESPONSE_EXCERPT_CHARS - excerpt.length);
        if (excerpt.length >= RESPONSE_EXCERPT_CHARS) finish();
      });
      response.on('end', finish);
      response.on('error', finish);
    });
    request.end(outgoing.body);
  });
}
