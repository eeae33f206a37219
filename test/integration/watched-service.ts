import { service, type CallOptions, type Service } from '../../scanner/src/net/service.ts';
import { baseUrl } from './client.ts';

/**
 * The agent's service client, reading the run's stored log (`readLog`) just before the call `ends` says ends the
 * run: what whoever sees the run's end can read of its log at that moment.
 */
export function serviceReadingLogAtEnd(
  apiKey: string,
  ends: (method: string, path: string, body: unknown) => boolean,
  readLog: () => Promise<string>,
) {
  const real = service({ url: baseUrl(), apiKey });
  let logAtEnd: string | undefined;
  const watched: Service = {
    ...real,
    call: (async (method: string, path: string, body?: unknown, options?: CallOptions) => {
      if (ends(method, path, body)) logAtEnd = await readLog();
      return real.call(method, path, body, options);
    }) as Service['call'],
  };
  return { service: watched, logAtEnd: () => logAtEnd };
}
