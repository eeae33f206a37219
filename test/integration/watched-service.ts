import { setTimeout as sleep } from 'node:timers/promises';
import { service, type CallOptions, type Service } from '../../scanner/src/net/service.ts';
import { baseUrl } from './client.ts';

/**
 * The agent's service client, reading the run's stored log (`readLog`) at the call `ends` says ends the run: what
 * whoever sees the run's end can read of its log at that moment. Just before the call, when the run's end and its
 * log are separate calls (a profile's result upload); just after it answered, when the call carries the log itself
 * (`afterEnd`, endScanRun). `delayLogUploadsMs` holds each log upload (uploadScanRunLog) that long before it is
 * sent, and `uploadsAtEnd` counts those still on their way when the ending call was sent (an older text that would
 * land after the end's).
 */
export function serviceReadingLogAtEnd(
  apiKey: string,
  ends: (method: string, path: string, body: unknown) => boolean,
  readLog: () => Promise<string>,
  { afterEnd = false, delayLogUploadsMs = 0 } = {},
) {
  const real = service({ url: baseUrl(), apiKey });
  let logAtEnd: string | undefined;
  let uploading = 0;
  let uploadsAtEnd: number | undefined;
  const watched: Service = {
    ...real,
    call: (async (method: string, path: string, body?: unknown, options?: CallOptions) => {
      if (method === 'PUT' && /\/perch\/runs\/[^/]+\/log\?/.test(path)) {
        uploading++;
        try {
          await sleep(delayLogUploadsMs);
          return await real.call(method, path, body, options);
        } finally {
          uploading--;
        }
      }
      const ending = ends(method, path, body);
      if (ending) uploadsAtEnd ??= uploading;
      if (ending && !afterEnd) logAtEnd = await readLog();
      const answer = await real.call(method, path, body, options);
      if (ending && afterEnd) logAtEnd = await readLog();
      return answer;
    }) as Service['call'],
  };
  return { service: watched, logAtEnd: () => logAtEnd, uploadsAtEnd: () => uploadsAtEnd };
}
