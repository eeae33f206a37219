import { setMaxListeners } from 'node:events';
import { expect } from 'vitest';
import { api } from './client.ts';
import type { ExpectedAlert } from '../../scanner/test/zap-expected.ts';

// Helpers of the import tests: a ZAP report sent to the import operation, and an imported scan read back through
// the public read operations (listScanAlerts, listScanAlertFindings, getAlertMessages) in the shape of the
// independent count (scanner/test/zap-expected.ts).

export const importReport = (
  token: string,
  appId: string,
  env: string,
  report: string | Buffer,
  contentType = 'application/xml',
) => api('POST', `/api/v1/app/${appId}/scan/import`, { token, rawBody: report, contentType, query: { env } });

interface AlertUri {
  uri: string;
  alertUriId: string;
  msgId: string;
  findingHash: string;
  status: string;
}

/** Every finding (URI) of an alert of the scan, all pages. */
export async function alertUrisOf(token: string, scanId: string, pluginId: string): Promise<AlertUri[]> {
  const uris: AlertUri[] = [];
  for (let pageToken = '0'; ;) {
    const out = await api('GET', `/api/v1/scan/${scanId}/alert/${pluginId}`, {
      token,
      query: { pageSize: 100, pageToken },
    });
    expect(out.status, out.text).toBe(200);
    uris.push(...out.body.applicationScanAlertUris);
    if (!out.body.nextPageToken) return uris;
    pageToken = out.body.nextPageToken;
  }
}

async function inParallel<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const firstLine = (text: string) => text.trim().split(/\r?\n/)[0].trim();

/** Messages are read for at most this many findings of an alert (each is one request): all for most samples. */
const MESSAGES_PER_ALERT = 150;

/**
 * The scan read back equals the independent count: alerts, severities, CWE ids, URI counts and URIs exactly;
 * messages exactly, or for an alert with more findings than MESSAGES_PER_ALERT, each message read is one the
 * report has for that URI.
 */
export function expectMatches(back: ReadBack, expected: ExpectedAlert[]): void {
  const withoutMessages = (alerts: ExpectedAlert[]) => alerts.map(({ messages: _m, ...rest }) => rest);
  expect(withoutMessages(back.alerts)).toEqual(withoutMessages(expected));
  back.alerts.forEach((alert, i) => {
    if (alert.messages.length === alert.uriCount) expect(alert.messages).toEqual(expected[i].messages);
    else {
      expect(alert.messages).toHaveLength(MESSAGES_PER_ALERT);
      for (const message of alert.messages) expect(expected[i].messages).toContain(message);
    }
  });
}

export interface ReadBack {
  alerts: ExpectedAlert[];
  /** pluginId -> the alert's finding hashes, sorted. */
  hashes: Record<string, string[]>;
  result: any;
}

/** The scan as the public read operations show it, in the independent count's shape. */
export async function readBack(token: string, scanId: string): Promise<ReadBack> {
  const out = await api('GET', `/api/v1/scan/${scanId}/alerts`, { token, query: { pageSize: 1000 } });
  expect(out.status, out.text).toBe(200);
  const result = out.body.applicationScanResults[0];
  const hashes: Record<string, string[]> = {};
  const alerts = await Promise.all(
    result.applicationAlerts.map(
      async (alert: { pluginId: string; name: string; severity: string; cweId: string; uriCount: number }) => {
        const uris = await alertUrisOf(token, scanId, alert.pluginId);
        hashes[alert.pluginId] = uris.map((u) => u.findingHash).sort();
        const messages = await inParallel(uris.slice(0, MESSAGES_PER_ALERT), 8, async (u) => {
          const message = await api('GET', `/api/v1/scan/${scanId}/uri/${u.alertUriId}/messages/${u.msgId}`, { token });
          expect(message.status, message.text).toBe(200);
          return [
            u.uri,
            firstLine(message.body.scanMessage.requestHeader),
            firstLine(message.body.scanMessage.responseHeader),
          ].join('\n');
        });
        return {
          name: alert.name,
          severity: alert.severity,
          cweId: alert.cweId,
          uriCount: alert.uriCount,
          uris: uris.map((u) => u.uri).sort(),
          messages: messages.sort(),
        };
      },
    ),
  );
  alerts.sort((a, b) => a.name.localeCompare(b.name) || a.severity.localeCompare(b.severity));
  return { alerts, hashes, result };
}

/** Untriaged figures an environment should show for these alerts: Info findings never count. */
export function untriagedOf(alerts: ExpectedAlert[]) {
  const count = (severity: string) => alerts.filter((a) => a.severity === severity).reduce((n, a) => n + a.uriCount, 0);
  const [high, medium, low] = [count('High'), count('Medium'), count('Low')];
  return {
    lastScanTotalUntriaged: high + medium + low,
    lastScanHighUntriaged: high,
    lastScanMediumUntriaged: medium,
    lastScanLowUntriaged: low,
  };
}

/**
 * A clock for importScanReport (ImportClock) that moves only when the test moves it: machine load never adds to
 * it. Its cut signals abort once it reaches their time (as AbortSignal.timeout does), noticed at the next reading of
 * the clock (as a timer would fire between two steps), or at once with `advance(ms, true)` (a write then in flight
 * is cut).
 */
export function virtualClock(start = Date.now()) {
  let now = start;
  const cuts: { at: number; controller: AbortController }[] = [];
  const fire = () => {
    for (const cut of cuts)
      if (now >= cut.at && !cut.controller.signal.aborted) cut.controller.abort(new Error('deadline'));
  };
  return {
    now: () => {
      fire();
      return now;
    },
    cutAt(at: number) {
      const controller = new AbortController();
      setMaxListeners(0, controller.signal); // every write in flight listens to it
      cuts.push({ at, controller });
      return controller.signal;
    },
    advance(ms: number, firing = false) {
      now += ms;
      if (firing) fire();
    },
  };
}

/** The items a BatchWriteItem puts (as the shared client's middleware sees its input). */
export function batchItems(input: unknown): Record<string, unknown>[] {
  const requests = Object.values(
    (input as { RequestItems?: Record<string, { PutRequest?: { Item: Record<string, unknown> } }[]> }).RequestItems ??
      {},
  ).flat();
  return requests.flatMap((r) => (r.PutRequest ? [r.PutRequest.Item] : []));
}

/** A ZAP alert (traditional JSON) with these instances. */
export const zapAlert = (pluginid: string, name: string, riskcode: string, cweid: string, instances: object[]) => ({
  pluginid,
  alertRef: pluginid,
  alert: name,
  name,
  riskcode,
  confidence: '2',
  riskdesc: '',
  desc: `<p>${name}</p>`,
  instances,
  count: String(instances.length),
  solution: '',
  otherinfo: '',
  reference: '',
  cweid,
  wascid: '0',
  sourceid: '1',
});
/** A GET instance of a ZAP alert. */
export const at = (uri: string, param: string, evidence = '') => ({ uri, method: 'GET', param, attack: '', evidence });

/** A ZAP report (traditional JSON) of the local target with these alerts. */
export const zapOf = (alerts: object[]) =>
  JSON.stringify({
    '@version': '2.14.0',
    '@generated': 'Wed, 2 Dec 2026 12:00:00',
    site: [{ '@name': 'http://127.0.0.1:18080', '@host': '127.0.0.1', '@port': '18080', '@ssl': 'false', alerts }],
  });
