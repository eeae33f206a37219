// A fetch for the agent's own requests to the target (the login, testPath, each re-login) that connects only to
// the address each host was pinned at (addresses.ts), the way the engine's requests go through the pinning proxy:
// the login cannot be sent elsewhere by a second DNS answer. Node's http(s).request with a fixed `lookup`: TLS
// still checks the certificate against the host's name.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { Fetch } from '../auth/http.ts';

/** The largest answer read (a login page or response); a larger one fails the request. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** `addressOf` answers the pinned address of a host (resolving and checking it once), or rejects to refuse it. */
export function pinnedFetch(
  addressOf: (hostname: string) => Promise<string>,
  options: { trustedCa?: string } = {},
): Fetch {
  return async (url, init) => {
    const target = new URL(url);
    if (!/^https?:$/.test(target.protocol)) throw new TypeError('fetch failed', { cause: { code: 'ERR_PROTOCOL' } });
    // A refused host's reason (a private address, say) is what the login's error shows.
    const address = await addressOf(target.hostname).catch((error: Error) => {
      throw new TypeError('fetch failed', { cause: { code: error.message } });
    });
    const family = isIP(address);
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if (options.all)
        (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const headers = Object.fromEntries(new Headers(init.headers));
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    return new Promise<Response>((resolve, reject) => {
      const fail = (error: Error) => reject(new TypeError('fetch failed', { cause: error }));
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(
        target,
        {
          method: init.method ?? 'GET',
          headers,
          lookup,
          signal: init.signal,
          family,
          // A self-signed target's authority, trusted besides Node's bundled ones.
          ...(options.trustedCa && target.protocol === 'https:'
            ? { ca: [...rootCertificates, options.trustedCa] }
            : {}),
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES)
              res.destroy(Object.assign(new Error('answer too large'), { code: 'EMSGSIZE' }));
            else chunks.push(chunk);
          });
          res.on('error', fail);
          res.on('end', () => {
            const out = new Headers();
            for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
              try {
                out.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
              } catch {
                // A header value fetch would refuse too: left out.
              }
            }
            const status = res.statusCode ?? 502;
            const empty = [204, 205, 304].includes(status) || status < 200;
            try {
              resolve(
                new Response(empty ? null : Buffer.concat(chunks), {
                  status: status < 200 ? 502 : status,
                  statusText: res.statusMessage ?? '',
                  headers: out,
                }),
              );
            } catch (error) {
              fail(error as Error);
            }
          });
        },
      );
      req.on('error', fail);
      req.end(body);
    });
  };
}
