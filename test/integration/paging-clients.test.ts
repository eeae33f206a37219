import { beforeAll, describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { alert, completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';

// The deprecated (V1) lists paged to their end the three ways public clients do it (docs/COMPATIBILITY.md "Paging"),
// each replayed step for step: by a counter compared with totalCount (stackhawk-policy-management), by a page count
// computed from totalCount (stackhawk-api-examples' scanlog_pull.py and auditlog_pull.py), and until nextPageToken is
// empty (agent-skills' hawk_api_all_pages). Every client must read every item once, without crashing or looping.

let tenant: Tenant;
let manyEnvsAppId: string; // an application with 12 environments, for List Environments
const APPS = 6; // with 2 environments each: 12 entries in List Applications, two default (10) pages
const SCANS = 7;

beforeAll(async () => {
  tenant = await createTenant();
  const ok = (out: { status: number; text: string }) => expect(out.status, out.text).toBe(200);
  const envOf = (appId: string, env: string) =>
    api('POST', `/api/v1/app/${appId}/env`, { token: tenant.token, body: { env } }).then(ok);
  const appIds = await Promise.all(
    Array.from({ length: APPS }, (_, i) => createApp(tenant, { name: `app-${i}`, env: 'dev' })),
  );
  manyEnvsAppId = await createApp(tenant, { name: 'many-envs', env: 'e00' });
  // One chain of writes per application (writes to one application at once would conflict: 409), chains at once.
  await Promise.all([
    ...appIds.map(async (appId, i) => {
      await envOf(appId, 'prod');
      for (let scan = i; scan < SCANS; scan += APPS) await startScan(tenant.token, appId);
    }),
    (async () => {
      for (let i = 1; i < 12; i++) await envOf(manyEnvsAppId, `e${String(i).padStart(2, '0')}`);
    })(),
  ]);
}, 300_000);

type Json = Record<string, any>;

/** One GET as the clients send it: query values as given, `undefined` left out (as `requests` does with None). */
async function get(path: string, query: Record<string, string | number | undefined> = {}) {
  const out = await api('GET', path, { token: tenant.token, query });
  return out;
}

/** Python's int(): optional blanks and sign around digits, anything else a ValueError. */
function pythonInt(value: unknown): number {
  if (typeof value !== 'string' || !/^\s*[+-]?\d+\s*$/.test(value))
    throw new Error(`ValueError: invalid literal for int() with base 10: ${JSON.stringify(value)}`);
  return Number(value);
}

/** `response.json()[key]`: a KeyError when the key is absent (an error answer has only `message`). */
function pythonKey(body: Json, key: string) {
  if (typeof body !== 'object' || !(key in body)) throw new Error(`KeyError: '${key}' in ${JSON.stringify(body)}`);
  return body[key];
}

/** Fails a client that would still be looping after far more requests than the list has pages. */
const loopGuard = (limit: number) => {
  let calls = 0;
  return () => {
    if (++calls > limit) throw new Error(`still paging after ${limit} requests: an endless loop`);
  };
};

interface V1List {
  name: string;
  path: () => string;
  key: string;
  id: (item: Json) => string;
  extra?: Record<string, string>;
}

const lists: V1List[] = [
  {
    name: 'List Applications',
    path: () => `/api/v1/app/${tenant.orgId}/list`,
    key: 'applications',
    id: (a) => `${a.applicationId}/${a.envId}`,
  },
  {
    name: 'List Scans',
    path: () => `/api/v1/scan/${tenant.orgId}`,
    key: 'applicationScanResults',
    id: (r) => r.scan.id,
  },
  {
    name: 'List Audit Activity',
    path: () => `/api/v1/org/${tenant.orgId}/audit`,
    key: 'auditRecords',
    id: (r) => r.id,
    extra: { sortfield: 'createdDate' },
  },
  {
    name: 'List Environments',
    path: () => `/api/v1/app/${manyEnvsAppId}/env/list`,
    key: 'environments',
    id: (e) => e.environmentId,
  },
];

/** Every item of the list, read in one page. */
async function everything(list: V1List): Promise<string[]> {
  const out = await get(list.path(), { ...list.extra, pageSize: 1000 });
  expect(out.status, out.text).toBe(200);
  return out.body[list.key].map(list.id);
}

const expectEveryItemOnce = async (list: V1List, read: string[]) => {
  const all = await everything(list);
  expect(all.length).toBeGreaterThan(0);
  expect(read.length, 'no duplicates').toBe(new Set(read).size);
  expect([...read].sort()).toEqual([...all].sort());
};

/**
 * stackhawk-policy-management's get_all_org_apps: reads totalCount, then loops while counter <= totalCount,
 * requesting the bare path for counter 0 and `?pageToken=counter` after, with counter = int(nextPageToken).
 */
async function pageByCounter(list: V1List): Promise<string[]> {
  const read: string[] = [];
  const guard = loopGuard(100);
  const total = pythonInt(pythonKey((await get(list.path(), list.extra)).body, 'totalCount'));
  let counter = 0;
  while (counter <= total) {
    guard();
    const out =
      counter < 1 ? await get(list.path(), list.extra) : await get(list.path(), { ...list.extra, pageToken: counter });
    expect(out.status, out.text).toBe(200); // raise_for_status
    counter = pythonInt(pythonKey(out.body, 'nextPageToken'));
    for (const item of pythonKey(out.body, list.key)) read.push(list.id(item));
  }
  return read;
}

/**
 * scanlog_pull.py's get_scan_results (`extraRequest`: its `+1`) and auditlog_pull.py's get_audit_events: the first
 * page with `pageToken` first (0, or empty as some clients send it), then ceil(totalCount / pageSize) (+1) more
 * requests, each sending back the previous answer's nextPageToken; status codes are not checked. auditlog_pull
 * calls next() on an empty page, a TypeError.
 */
async function pageByComputedCount(
  list: V1List,
  { first, pageSize, extraRequest }: { first: string; pageSize: number; extraRequest: boolean },
): Promise<string[]> {
  const read: string[] = [];
  let response = await get(list.path(), { ...list.extra, pageToken: first, pageSize });
  const total = pythonKey(response.body, 'totalCount');
  const pages = Math.ceil(pythonInt(total) / pageSize) + (extraRequest ? 1 : 0);
  for (let i = 0; i < pages; i++) {
    const nextPageToken = pythonKey(response.body, 'nextPageToken');
    const records = pythonKey(response.body, list.key);
    if (records.length > 0) for (const record of records) read.push(list.id(record));
    else if (!extraRequest) throw new Error('TypeError: next expected at least 1 argument, got 0');
    response = await get(list.path(), { ...list.extra, pageToken: nextPageToken, pageSize });
  }
  return read;
}

/**
 * agent-skills' hawk_api_all_pages: `?pageSize=N` first, then `&pageToken=<nextPageToken>` until
 * `jq -r '.nextPageToken // empty'` is empty or "null"; any status outside 2xx fails it.
 */
async function pageUntilEmptyToken(list: V1List, pageSize: number): Promise<string[]> {
  const read: string[] = [];
  const guard = loopGuard(100);
  let token: string | undefined;
  for (;;) {
    guard();
    const out = await get(list.path(), { ...list.extra, pageSize, pageToken: token });
    expect(out.status, out.text).toBe(200);
    read.push(...(out.body[list.key] ?? []).map(list.id));
    const next = out.body.nextPageToken;
    token = next === null || next === undefined || next === false ? '' : String(next);
    if (token === '' || token === 'null') return read;
  }
}

describe.each(lists)('$name paged to its end', (list) => {
  it('by a counter compared with totalCount (numeric nextPageToken on every page)', async () => {
    await expectEveryItemOnce(list, await pageByCounter(list));
  }, 180_000);

  it('by a computed page count, sending back each nextPageToken, first pageToken 0 or empty', async () => {
    for (const first of ['0', ''])
      for (const extraRequest of [true, false])
        for (const pageSize of [4, 1000])
          await expectEveryItemOnce(list, await pageByComputedCount(list, { first, pageSize, extraRequest }));
  }, 180_000);

  it('until nextPageToken is empty, without looping', async () => {
    for (const pageSize of [4, 1000]) await expectEveryItemOnce(list, await pageUntilEmptyToken(list, pageSize));
  }, 180_000);
});

describe('end markers', () => {
  it('the last page names a page past the end, which answers empty with the end marker', async () => {
    const scans = `/api/v1/scan/${tenant.orgId}`;
    const last = await get(scans, { pageSize: 3, pageToken: 2 });
    expect(last.body).toMatchObject({ totalCount: String(SCANS), nextPageToken: String(SCANS + 1) });
    expect(last.body.applicationScanResults).toHaveLength(1);
    const past = await get(scans, { pageSize: 3, pageToken: SCANS + 1 });
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ applicationScanResults: [], totalCount: String(SCANS), nextPageToken: '' });
    // A page past the items but not past totalCount points at the same page past the end.
    expect((await get(scans, { pageSize: 3, pageToken: 4 })).body).toMatchObject({
      applicationScanResults: [],
      nextPageToken: String(SCANS + 1),
    });

    const audit = `/api/v1/org/${tenant.orgId}/audit`;
    const total = Number((await get(audit)).body.totalCount);
    const auditPast = await get(audit, { pageToken: total + 1 });
    expect(auditPast.body).toMatchObject({ auditRecords: [], totalCount: String(total), nextPageToken: '-1' });
  });

  it('an empty pageToken is the first page', async () => {
    for (const list of lists) {
      const empty = await get(list.path(), { ...list.extra, pageToken: '', pageSize: 2 });
      const first = await get(list.path(), { ...list.extra, pageToken: 0, pageSize: 2 });
      expect(empty.status, `${list.name}: ${empty.text}`).toBe(200);
      expect(empty.body[list.key].map(list.id)).toEqual(first.body[list.key].map(list.id));
      expect(empty.body.nextPageToken).toBe('1');
    }
  });

  it('pageToken=-1 answers an empty page with an empty nextPageToken, in every V1 list', async () => {
    for (const list of lists) {
      const out = await get(list.path(), { ...list.extra, pageToken: '-1' });
      expect(out.status, `${list.name}: ${out.text}`).toBe(200);
      expect(out.body[list.key], list.name).toEqual([]);
      expect(out.body.nextPageToken, list.name).toBe('');
      expect(Number(out.body.totalCount), list.name).toBeGreaterThan(0);
    }
    // Other negative tokens stay refused.
    const out = await get(`/api/v1/scan/${tenant.orgId}`, { pageToken: '-2' });
    expect(out.status).toBe(400);
    expect(out.body.message).toContain('pageToken');
  });
});

describe("List Scan Alerts (one scan's alerts inside its applicationScanResults entry)", () => {
  const ALERTS = 7;
  let scanId: string;
  const path = () => `/api/v1/scan/${scanId}/alerts`;
  const alertsOf = (body: Json): string[] =>
    body.applicationScanResults.flatMap((r: Json) => r.applicationAlerts.map((a: Json) => a.pluginId));

  beforeAll(async () => {
    const appId = await createApp(tenant, { name: 'alerted', env: 'dev' });
    ({ scanId } = await startScan(tenant.token, appId));
    await reportAlerts(
      tenant.token,
      scanId,
      Array.from({ length: ALERTS }, (_, i) => alert(String(10000 + i), 'Low', 1)),
    );
    await completeScan(tenant.token, scanId);
  });

  it("agent-skills' hawk_api_all_pages counts the scan once and reads every alert once", async () => {
    for (const pageSize of [3, 7, 1000]) {
      // hawk_api_all_pages PATH applicationScanResults: the entries of every page, until the token is empty.
      const entries: Json[] = [];
      const guard = loopGuard(100);
      let token: string | undefined;
      for (;;) {
        guard();
        const out = await get(path(), { pageSize, pageToken: token });
        expect(out.status, out.text).toBe(200);
        entries.push(...(out.body.applicationScanResults ?? []));
        const next = out.body.nextPageToken;
        token = next === null || next === undefined || next === false ? '' : String(next);
        if (token === '' || token === 'null') break;
      }
      expect(new Set(entries.map((e) => e.scan.id)), `pageSize ${pageSize}`).toEqual(new Set([scanId]));
      expect(entries, `pageSize ${pageSize}: one entry per page read`).toHaveLength(Math.ceil(ALERTS / pageSize));
      const read = entries.flatMap((e) => e.applicationAlerts.map((a: Json) => a.pluginId));
      expect(read.length, 'no duplicates').toBe(new Set(read).size);
      expect(read).toHaveLength(ALERTS);
    }
  });

  it('the last page answers the empty end marker; a page past the end answers no entry, not the scan again', async () => {
    const last = await get(path(), { pageSize: 3, pageToken: 2 });
    expect(last.body).toMatchObject({ totalCount: String(ALERTS), nextPageToken: '' });
    expect(alertsOf(last.body)).toHaveLength(1);
    expect((await get(path(), { pageSize: 3, pageToken: 1 })).body.nextPageToken).toBe('2');
    for (const pageToken of [3, ALERTS + 1, '-1']) {
      const past = await get(path(), { pageSize: 3, pageToken });
      expect(past.status, past.text).toBe(200);
      expect(past.body).toEqual({ applicationScanResults: [], nextPageToken: '', totalCount: String(ALERTS) });
    }
    // Page 0 always carries the scan, even with every alert on it.
    const whole = await get(path(), { pageSize: 1000 });
    expect(whole.body).toMatchObject({ nextPageToken: '', totalCount: String(ALERTS) });
    expect(whole.body.applicationScanResults.map((r: Json) => r.scan.id)).toEqual([scanId]);
  });
});
