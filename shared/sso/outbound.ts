import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { ReceiverRefused, resolveReceiver, type PinnedAddress } from '../outbound/receivers.ts';

// The requests openid-client makes to an organization's identity provider (discovery, JWKS, token), as a `fetch`
// of its own (docs/IDENTITY.md "Single sign-on"): the host is resolved once and the connection pinned to the
// checked address, under the same rule as webhook receivers (never link-local or metadata addresses; private and
// loopback ones only when an owner allowed private networks in the integration settings), with one time limit on
// the whole exchange and a bound on the answer's size. Redirects are not followed.

export const OUTBOUND_TIMEOUT_MS = 5_000;
export const MAX_ANSWER_BYTES = 256 * 1024;

export class ProviderUnreachable extends Error {}

type FetchInit = { method?: string; headers?: Record<string, string>; body?: unknown; signal?: AbortSignal };

/** A `fetch` for openid-client's customFetch, bound to the organization's network rule. */
export function providerFetch(allowPrivateNetworks: boolean) {
  return async (input: string | URL, init: FetchInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new ProviderUnreachable(`${url.origin} is not an http(s) URL`);
    let pinned: PinnedAddress;
    try {
      pinned = await resolveReceiver(url.href, allowPrivateNetworks);
    } catch (error) {
      if (error instanceof ReceiverRefused) throw new ProviderUnreachable(`the provider's ${error.message}`);
      throw error;
    }
    const lookup: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all)
        (callback as (error: null, addresses: PinnedAddress[]) => void)(null, [pinned]);
      else callback(null, pinned.address, pinned.family);
    };
    const body =
      init.body === undefined || init.body === null
        ? undefined
        : init.body instanceof URLSearchParams
          ? init.body.toString()
          : String(init.body);
    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      const fail = (message: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.destroy();
        reject(new ProviderUnreachable(message));
      };
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method: init.method ?? 'GET',
        headers: {
          ...init.headers,
          'user-agent': 'hawk-api-sso/1',
          ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
        lookup,
      });
      const timer = setTimeout(
        () => fail(`${url.origin} gave no complete answer within ${OUTBOUND_TIMEOUT_MS} ms`),
        OUTBOUND_TIMEOUT_MS,
      );
      init.signal?.addEventListener('abort', () => fail(`the request to ${url.origin} was aborted`));
      request.on('error', (error) => fail(`${url.origin}: ${error.message}`));
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) return fail(`${url.origin} answered more than ${MAX_ANSWER_BYTES} bytes`);
          chunks.push(chunk);
        });
        response.on('error', (error) => fail(`${url.origin}: ${error.message}`));
        response.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers))
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
              headers.append(name, one);
          const status = response.statusCode ?? 502;
          const nullBody = status === 204 || status === 304;
          resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, headers }));
        });
      });
      request.end(body);
    });
  };
}
