import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { api, type ApiResponse } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { alert, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { at, importReport, zapAlert, zapOf } from './import-helpers.ts';
import { startFakeTracker, type FakeKind, type FakeTracker } from './tracker-fakes.ts';
import { db } from '../../shared/db/client.ts';
import { config } from '../../shared/config.ts';
import { keys } from '../../shared/db/keys.ts';
import { getItem } from '../../shared/db/query.ts';
import { getTicket } from '../../shared/trackers/repository.ts';
import { type TicketRecord, ticketIdOf } from '../../shared/trackers/model.ts';
import { issuesOfFindings } from '../../shared/results/finding-repository.ts';

// Promoting findings to issue trackers (docs/TRACKERS.md): connections managed through createTracker & co. with
// their tokens sealed, tickets made by the delivery queue's consumer (never inside the request) against fakes of
// Jira Cloud, Jira Server / Data Center and GitHub on loopback, never twice, closed once the finding is gone for
// closeAfterScans scans, read back when people closed them, and delivered late when the tracker was down.

const trackers = (orgId: string) => `/api/v1/org/${orgId}/integrations/trackers`;
/** Every answer the tests got: no token may appear in any of them. */
const answers: string[] = [];
const tokens: string[] = [];
const fakes: FakeTracker[] = [];

async function call(method: string, path: string, options: Parameters<typeof api>[2] = {}): Promise<ApiResponse> {
  const out = await api(method, path, options);
  answers.push(out.text);
  return out;
}

async function allowPrivate(tenant: Tenant) {
  const out = await call('PUT', `/api/v1/org/${tenant.orgId}/integrations/settings`, {
    token: tenant.token,
    body: { allowPrivateNetworks: true },
  });
  expect(out.status, out.text).toBe(200);
}

async function until<T>(what: () => Promise<T> | T, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (ok(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const newToken = (label: string) => {
  const token = `${label}-${crypto.randomUUID()}`;
  tokens.push(token);
  return token;
};

/** A fake tracker and the organization's connection to it. */
async function connect(tenant: Tenant, kind: FakeKind, extra: Record<string, unknown> = {}) {
  const token = newToken(`tok-${kind}`);
  const credentials = { token, email: 'bot@example.test', project: 'SEC', repository: 'acme/shop' };
  const fake = await startFakeTracker(kind, credentials);
  fakes.push(fake);
  const body =
    kind === 'github'
      ? { kind, baseUrl: fake.baseUrl, repository: credentials.repository, token }
      : {
          kind,
          baseUrl: fake.baseUrl,
          project: 'SEC',
          token,
          ...(kind === 'jira' ? { email: credentials.email } : {}),
        };
  const created = await call('POST', trackers(tenant.orgId), {
    token: tenant.token,
    body: { name: `${kind} tracker`, ...body, ...extra },
  });
  expect(created.status, created.text).toBe(200);
  return { fake, trackerId: created.body.tracker.id as string, token };
}

/** One scan of the environment reporting `alerts`, completed. */
async function scan(tenant: Tenant, appId: string, alerts: unknown[]) {
  const started = await startScan(tenant.token, appId);
  if (alerts.length) await reportAlerts(tenant.token, started.scanId, alerts);
  const completed = await call('POST', `/api/v1/scan/${started.scanId}/complete`, {
    token: tenant.token,
    body: { status: 'COMPLETED', urlCount: 3 },
  });
  expect(completed.status, completed.text).toBe(200);
  return started;
}

async function promote(tenant: Tenant, appId: string, envId: string, integrationId: string, pluginId = '10038') {
  const out = await call('POST', `/api/v1/app/${appId}/alerts/rules/${integrationId}`, {
    token: tenant.token,
    body: {
      alertRuleWrapper: {
        alertRule: [
          {
            alertCondition: { environmentId: envId, pluginId, requestMethod: 'GET' },
            path: '/path/0',
            result: 'PROMOTED',
            note: 'to the tracker',
          },
        ],
      },
    },
  });
  expect(out.status, out.text).toBe(200);
  return out.body;
}

/** The finding's view in a scan: its status and ticket fields. */
async function findingView(tenant: Tenant, scanId: string, pluginId = '10038') {
  const out = await call('GET', `/api/v1/scan/${scanId}/alert/${pluginId}`, { token: tenant.token });
  expect(out.status, out.text).toBe(200);
  return out.body.applicationScanAlertUris[0] as {
    findingHash: string;
    status: string;
    statusLink?: string;
    ticketKey?: string;
    ticketStatus?: string;
  };
}

/** The ticket of the finding's issue (docs/ISSUES.md): keyed by the issue. */
async function ticketOf(appId: string, envId: string, findingHash: string) {
  const env = { applicationId: appId, environmentId: envId };
  const [finding] = await issuesOfFindings(env, [findingHash]);
  return getTicket(env, ticketIdOf(finding ?? { findingHash }));
}

const creations = (fake: FakeTracker) =>
  fake.requests.filter((r) => r.method === 'POST' && /\/issue$|\/issues$/.test(r.path) && r.status === 201);

afterAll(async () => {
  await Promise.all(fakes.map((fake) => fake.close()));
});

describe('tracker connections', () => {
  it('creates, lists, gets, updates and deletes one, audited, with the token sealed and never shown', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const { fake, trackerId, token } = await connect(tenant, 'jira', { closeAfterScans: 2 });
    const got = await call('GET', `${trackers(tenant.orgId)}/${trackerId}`, { token: tenant.token });
    expect(got.body.tracker).toMatchObject({
      id: trackerId,
      kind: 'jira',
      baseUrl: fake.baseUrl,
      project: 'SEC',
      issueType: 'Bug',
      email: 'bot@example.test',
      closeAfterScans: 2,
      enabled: true,
      organizationId: tenant.orgId,
    });
    const listed = await call('GET', trackers(tenant.orgId), { token: tenant.token });
    expect(listed.body.trackers).toEqual([got.body.tracker]);

    const rotated = newToken('rotated');
    const updated = await call('PUT', `${trackers(tenant.orgId)}/${trackerId}`, {
      token: tenant.token,
      body: { token: rotated, autoPromote: { minSeverity: 'High' }, name: 'security board' },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.tracker).toMatchObject({ name: 'security board', autoPromote: { minSeverity: 'High' } });
    const cleared = await call('PUT', `${trackers(tenant.orgId)}/${trackerId}`, {
      token: tenant.token,
      body: { autoPromote: null },
    });
    expect(cleared.body.tracker.autoPromote).toBeUndefined();

    // Read by its key: a filtered Scan sees only the table's first megabyte, which other tests fill.
    const item = await getItem(keys.tracker(tenant.orgId, trackerId));
    expect(item!.sealedToken).toMatch(/^v1\./);
    for (const plain of [token, rotated]) expect(JSON.stringify(item)).not.toContain(plain);

    const removed = await call('DELETE', `${trackers(tenant.orgId)}/${trackerId}`, { token: tenant.token });
    expect(removed.status).toBe(200);
    expect((await call('GET', `${trackers(tenant.orgId)}/${trackerId}`, { token: tenant.token })).status).toBe(404);
    const audit = await call('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: tenant.token });
    const types = audit.body.auditRecords.map((r: { userActivityType: string }) => r.userActivityType);
    expect(types).toEqual([
      'INTEGRATION_MODIFIED', // the settings
      'INTEGRATION_ADDED',
      'INTEGRATION_MODIFIED',
      'INTEGRATION_MODIFIED',
      'INTEGRATION_REMOVED',
    ]);
    expect(JSON.parse(audit.body.auditRecords[2].payload)).toMatchObject({ trackerId, tokenReplaced: true });
  });

  it('answers 400 naming what is wrong, refuses private addresses unless allowed, and checks permissions', async () => {
    const tenant = await createTenant();
    const refused = await call('POST', trackers(tenant.orgId), {
      token: tenant.token,
      body: { kind: 'jiraServer', baseUrl: 'http://127.0.0.1:9/', project: 'SEC', token: 'x' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^baseUrl: 127\.0\.0\.1 resolves to 127\.0\.0\.1 is a private or loopback/);
    await allowPrivate(tenant);
    const metadata = await call('POST', trackers(tenant.orgId), {
      token: tenant.token,
      body: { kind: 'github', baseUrl: 'http://169.254.169.254/', repository: 'a/b', token: 'x' },
    });
    expect(metadata.body.message).toMatch(/link-local, metadata or reserved/);
    const cases: [unknown, RegExp][] = [
      [{ kind: 'jira', baseUrl: 'http://127.0.0.1:9', project: 'SEC', token: 'x' }, /email/],
      [{ kind: 'jira', baseUrl: 'http://127.0.0.1:9', email: 'a@b.c', token: 'x' }, /project/],
      [{ kind: 'jiraServer', project: 'SEC', token: 'x' }, /baseUrl/],
      [{ kind: 'github', token: 'x' }, /repository/],
      [{ kind: 'github', repository: 'a/b', token: 'a b' }, /token/],
      [{ kind: 'gitlab', token: 'x' }, /kind/],
      [{ kind: 'github', repository: 'a/b', token: 'x', closeAfterScans: 0 }, /closeAfterScans/],
      [{ kind: 'github', repository: 'a/b', token: 'x', autoPromote: { minSeverity: 'Info' } }, /minSeverity/],
    ];
    for (const [body, message] of cases) {
      const out = await call('POST', trackers(tenant.orgId), { token: tenant.token, body });
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body.message).toMatch(message);
    }
    expect((await call('GET', trackers(tenant.orgId), { token: tenant.token })).body.trackers ?? []).toEqual([]);

    const { trackerId } = await connect(tenant, 'github');
    const reader = await addUserTo(tenant.orgId, ['read:integration']);
    expect((await call('GET', trackers(tenant.orgId), { token: reader.token })).status).toBe(200);
    expect((await call('DELETE', `${trackers(tenant.orgId)}/${trackerId}`, { token: reader.token })).status).toBe(401);
    const none = await addUserTo(tenant.orgId, ['read:application']);
    expect((await call('GET', trackers(tenant.orgId), { token: none.token })).status).toBe(401);
    const other = await createTenant();
    expect((await call('GET', `${trackers(other.orgId)}/${trackerId}`, { token: other.token })).status).toBe(404);
    expect((await call('GET', trackers(tenant.orgId), { token: other.token })).status).toBe(401);
  });
});

describe.each(['jira', 'jiraServer', 'github'] as const)('promoting findings to %s', (kind) => {
  it('makes one ticket per issue, never a second, and closes it after closeAfterScans scans without it', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const { fake, trackerId } = await connect(tenant, kind, { closeAfterScans: 2 });
    const appId = await createApp(tenant);
    const first = await scan(tenant, appId, [alert('10038', 'High', 1), alert('10020', 'Low', 1, 0, '693')]);

    const answer = await promote(tenant, appId, first.envId, trackerId);
    expect(answer.alertRules[0]).toMatchObject({ result: 'PROMOTED', [kind]: { issueStatus: 'PENDING' } });
    const view = await until(
      () => findingView(tenant, first.scanId),
      (v) => Boolean(v.ticketKey),
    );
    const issue = fake.issues[0]!;
    expect(fake.issues).toHaveLength(1);
    expect(view).toMatchObject({ status: 'PROMOTED', ticketKey: issue.key, ticketStatus: 'OPEN' });
    expect(view.statusLink).toBe(
      kind === 'github' ? `https://github.example/acme/shop/issues/1` : `${fake.baseUrl}/browse/${issue.key}`,
    );
    // The hash is in the ticket: a label on Jira, the body's text on GitHub (both searched before creating).
    const text = JSON.stringify(issue.description);
    expect(text).toContain(`hawk-finding-${view.findingHash}`);
    if (kind !== 'github') expect(issue.labels).toContain(`hawk-finding-${view.findingHash}`);
    expect(issue.summary).toMatch(/^Plugin 10038 \(High\): GET \/path\/\{id\}/);

    // Promoted again: no second ticket (the finding has one). Its record lost: the tracker's search finds it.
    await promote(tenant, appId, first.envId, trackerId);
    const again = await promote(tenant, appId, first.envId, trackerId);
    expect(again.alertRules[0][kind]).toMatchObject({ key: issue.key, keyUrl: view.statusLink });
    const made = (await ticketOf(appId, first.envId, view.findingHash))!;
    expect(made.findingHash).toBe(view.findingHash);
    await db.send(
      new DeleteCommand({ TableName: config.tableName, Key: keys.ticket(appId, first.envId, ticketIdOf(made)) }),
    );
    await promote(tenant, appId, first.envId, trackerId);
    await until(
      () => ticketOf(appId, first.envId, view.findingHash),
      (t) => t?.state === 'OPEN',
    );
    await new Promise((resolve) => setTimeout(resolve, 1000)); // time for a duplicate to show, were there one
    expect(fake.issues).toHaveLength(1);
    expect(creations(fake)).toHaveLength(1);

    // Scans that find it keep it open; the first without it counts one; the second closes it (closeAfterScans 2).
    const still = await scan(tenant, appId, [alert('10038', 'High', 1)]);
    await until(
      () => ticketOf(appId, first.envId, view.findingHash),
      (t) => t?.lastScanId === still.scanId,
    );
    const fixed1 = await scan(tenant, appId, [alert('10020', 'Low', 1, 0, '693')]);
    const counted = await until(
      () => ticketOf(appId, first.envId, view.findingHash),
      (t) => t?.lastScanId === fixed1.scanId,
    );
    expect(counted).toMatchObject({ state: 'OPEN', missedScans: 1 });
    expect(issue.category).toBe('new');
    const fixed2 = await scan(tenant, appId, []);
    const closed = await until(
      () => ticketOf(appId, first.envId, view.findingHash),
      (t) => t?.state === 'CLOSED',
    );
    expect(closed).toMatchObject({ closedBy: 'service', missedScans: 2, lastScanId: fixed2.scanId });
    expect(issue.category).toBe('done');
    if (kind === 'github') expect(issue.stateReason).toBe('completed');
    else
      expect(fake.requests.some((r) => r.path.endsWith('/transitions') && r.body?.transition?.id === '31')).toBe(true);
    expect((await findingView(tenant, still.scanId)).ticketStatus).toBe('CLOSED_FIXED');
    expect(fake.violations).toEqual([]);
  });

  it('reads back a ticket people closed: not planned accepts the risk, done leaves it promoted', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const { fake, trackerId } = await connect(tenant, kind);
    const appId = await createApp(tenant);
    const first = await scan(tenant, appId, [alert('10038', 'High', 1), alert('10020', 'Low', 1, 0, '693')]);
    await promote(tenant, appId, first.envId, trackerId, '10038');
    await promote(tenant, appId, first.envId, trackerId, '10020');
    await until(
      () => fake.issues,
      (issues) => issues.length === 2 && issues.every((i) => i.key),
    );
    const high = await until(
      () => findingView(tenant, first.scanId, '10038'),
      (v) => Boolean(v.ticketKey),
    );
    const low = await until(
      () => findingView(tenant, first.scanId, '10020'),
      (v) => Boolean(v.ticketKey),
    );
    fake.closeByPeople(high.ticketKey!, 'notPlanned');
    fake.closeByPeople(low.ticketKey!, 'done');

    // The next scan still finds both: the service reads the tickets back.
    const next = await scan(tenant, appId, [alert('10038', 'High', 1), alert('10020', 'Low', 1, 0, '693')]);
    const readBack = (hash: string) =>
      until(
        () => ticketOf(appId, first.envId, hash),
        (t): t is TicketRecord => t?.state === 'CLOSED',
      );
    expect(await readBack(high.findingHash)).toMatchObject({ closedBy: 'people', resolution: 'notPlanned' });
    expect(await readBack(low.findingHash)).toMatchObject({ closedBy: 'people', resolution: 'done' });
    const highNow = await until(
      () => findingView(tenant, next.scanId, '10038'),
      (v) => v.status === 'RISK_ACCEPTED',
    );
    expect(highNow).toMatchObject({ status: 'RISK_ACCEPTED', ticketStatus: 'CLOSED_NOT_PLANNED' });
    expect(await findingView(tenant, next.scanId, '10020')).toMatchObject({
      status: 'PROMOTED',
      ticketStatus: 'CLOSED_DONE',
    });
    // Nothing of it was closed or made by the service.
    expect(creations(fake)).toHaveLength(2);
    expect(fake.requests.filter((r) => r.method === 'PATCH' || r.path.endsWith('/transitions'))).toEqual([]);
    expect(fake.violations).toEqual([]);
  });
});

describe('ticket text', () => {
  // Names from people and from an imported report, written into GitHub's markdown and Jira Server's wiki markup:
  // each must show as written, never as a link, an image, a mention, a macro, HTML or emphasis of its own.
  const APP = '[click](https://evil.test) ![x](https://evil.test/i.png) @octocat #1 <b>*bold*</b>';
  const ENV = '_env_ {color:red}red{color} [~admin] !e.png!';
  const ALERT = '[link](https://evil.test) ![img](https://evil.test/p.png) @admin <img src=x onerror=alert(1)>';
  const zapJson = JSON.stringify({
    '@version': '2.11.1',
    site: [
      {
        '@name': 'http://a.test',
        alerts: [
          {
            pluginid: '10038',
            name: ALERT,
            riskcode: '3',
            cweid: '79',
            instances: [{ uri: 'http://a.test/p/[a](https://evil.test)/`x`', method: 'GET', param: '@q`' }],
          },
        ],
      },
    ],
  });
  const expected = {
    github: [
      String.raw`hawk-api found \[link\]\(https\:\/\/evil\.test\) \!\[img\]\(https\:\/\/evil\.test\/p\.png\) \@&#8203;admin \<img src\=x onerror\=alert\(1\)\> (plugin 10038, High) in \[click\]\(https\:\/\/evil\.test\) \!\[x\]\(https\:\/\/evil\.test\/i\.png\) \@&#8203;octocat \#&#8203;1 \<b\>\*bold\*\<\/b\> / \_env\_ \{color\:red\}red\{color\} \[\~admin\] \!e\.png\!.`,
      'Request: GET `` http://a.test/p/[a](https://evil.test)/`x` `` (parameter `` @q` ``)',
    ],
    jiraServer: [
      String.raw`hawk-api found \[link\]\(https&#58;//evil.test\) \!\[img\]\(https&#58;//evil.test/p.png\) \@admin <img src=x onerror=alert\(1\)> (plugin 10038, High) in \[click\]\(https&#58;//evil.test\) \!\[x\]\(https&#58;//evil.test/i.png\) \@octocat \#1 <b>\*bold\*</b> / \_env\_ \{color&#58;red\}red\{color\} \[\~admin\] \!e.png\!.`,
      String.raw`Request: GET http&#58;//a.test/p/\[a\]\(https&#58;//evil.test\)/` +
        '`x`' +
        String.raw` (parameter \@q` +
        '`)',
    ],
  };

  it.each(['github', 'jiraServer'] as const)(
    '%s: hostile names, an imported alert name, the URI and the parameter show as written',
    async (kind) => {
      const tenant = await createTenant();
      await allowPrivate(tenant);
      const { fake } = await connect(tenant, kind, { autoPromote: { minSeverity: 'High' } });
      const appId = await createApp(tenant, { name: APP, env: ENV });
      const imported = await importReport(tenant.token, appId, ENV, zapJson, 'application/json');
      expect(imported.status, imported.text).toBe(200);
      const [issue] = await until(
        () => fake.issues,
        (issues) => issues.length === 1,
      );
      expect(issue, 'the imported High finding was promoted').toBeDefined();
      const lines = String(issue!.description).split('\n');
      expect(lines.slice(0, 2)).toEqual(expected[kind]);
      expect(lines.at(-1)).toMatch(/^Finding: hawk-finding-[0-9a-f]+$/);
      expect(lines).toContain('CWE-79');
      // Titles and summaries are plain text in both trackers: the names as they are (cut at 250 characters).
      expect(issue!.summary).toBe(
        `${ALERT} (High): GET /p/[a](https:/evil.test)/\`x\` in ${APP} / ${ENV}`.slice(0, 250),
      );
      expect(fake.violations).toEqual([]);
    },
  );
});

describe('a tracker that is down or rate limited', () => {
  it('never fails the triage or the scan; the ticket is made later, after Retry-After and the backoff', async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const { fake, trackerId } = await connect(tenant, 'github', { autoPromote: { minSeverity: 'Medium' } });
    const appId = await createApp(tenant);
    // The scan's new High finding is promoted on its own (autoPromote); the tracker answers 429 then 503 first.
    fake.failNext([{ status: 429, retryAfter: '2' }, { status: 503 }]);
    const first = await scan(tenant, appId, [alert('10038', 'High', 1), alert('10020', 'Low', 1, 0, '693')]);
    const promoted = await until(
      () => findingView(tenant, first.scanId, '10038'),
      (v) => Boolean(v.ticketKey),
    );
    expect(promoted).toMatchObject({ status: 'PROMOTED', ticketStatus: 'OPEN' });
    expect((await findingView(tenant, first.scanId, '10020')).status).toBe('UNKNOWN'); // Low: below Medium
    const [limited, failed, retried] = fake.requests;
    expect([limited!.status, failed!.status]).toEqual([429, 503]);
    expect(failed!.at - limited!.at).toBeGreaterThanOrEqual(1900); // Retry-After: 2, not the 200 ms backoff
    expect(retried!.status).toBe(200);
    expect(fake.issues).toHaveLength(1);

    // A triage while the tracker answers 503 answers at once; the ticket follows once it is back.
    fake.failNext([{ status: 503 }, { status: 502 }]);
    const started = Date.now();
    await promote(tenant, appId, first.envId, trackerId, '10020');
    expect(Date.now() - started).toBeLessThan(1500);
    const low = await until(
      () => findingView(tenant, first.scanId, '10020'),
      (v) => Boolean(v.ticketKey),
    );
    expect(low.ticketStatus).toBe('OPEN');
    expect(fake.issues).toHaveLength(2);

    // Down for every attempt: the job ends in the dead letters and the ticket says why; the scan was not failed.
    fake.down = true;
    const third = await scan(tenant, appId, [
      alert('10038', 'High', 1),
      alert('10020', 'Low', 1, 0, '693'),
      alert('40012', 'High', 1, 0, '89'),
    ]);
    const { findingHash } = await findingView(tenant, third.scanId, '40012');
    const failedTicket = await until(
      () => ticketOf(appId, first.envId, findingHash),
      (t) => t?.state === 'FAILED',
    );
    fake.down = false;
    expect(failedTicket?.error).toMatch(/answered 500 \(after 3 attempts\)/);
    expect((await findingView(tenant, third.scanId, '40012')).ticketStatus).toBe('FAILED');
    expect(fake.violations).toEqual([]);
  });
});

/** A ZAP report of a local target: reflected XSS on GET /search (CWE-79) when `withXss`, and a missing CSP header. */
const zapReport = (withXss: boolean) =>
  zapOf([
    ...(withXss
      ? [zapAlert('40012', 'Cross Site Scripting (Reflected)', '3', '79', [at('http://127.0.0.1:18080/search', '')])]
      : []),
    zapAlert('10038', 'Content Security Policy (CSP) Header Not Set', '2', '693', [at('http://127.0.0.1:18080/', '')]),
  ]);

/** A Nuclei report (JSON lines) of the same target: the XSS on GET /search (CWE-79) when `withXss`, and a tech match. */
const nucleiReport = (withXss: boolean) =>
  [
    ...(withXss
      ? [
          {
            'template-id': 'reflected-xss',
            info: { name: 'Reflected XSS', severity: 'high', classification: { 'cwe-id': ['cwe-79'] } },
            type: 'http',
            host: 'http://127.0.0.1:18080',
            'matched-at': 'http://127.0.0.1:18080/search',
          },
        ]
      : []),
    {
      'template-id': 'tech-detect',
      'matcher-name': 'express',
      info: { name: 'Wappalyzer Technology Detection', severity: 'info' },
      type: 'http',
      host: 'http://127.0.0.1:18080',
      'matched-at': 'http://127.0.0.1:18080/',
    },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n');

describe('tickets per issue', () => {
  it("makes one ticket for an issue two tools detect, shows it on both, and closes it only when both tools' scans miss it", async () => {
    const tenant = await createTenant();
    await allowPrivate(tenant);
    const { fake, trackerId } = await connect(tenant, 'jira', { closeAfterScans: 1 });
    const appId = await createApp(tenant);
    const imported = async (report: string, contentType: string) => {
      const out = await importReport(tenant.token, appId, 'staging', report, contentType);
      expect(out.status, out.text).toBe(200);
      return out.body as { scanId: string; envId: string };
    };
    const zap = await imported(zapReport(true), 'application/json');
    const nuclei = await imported(nucleiReport(true), 'text/plain');
    const envId = zap.envId;
    const rows = (
      await call('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, {
        token: tenant.token,
        query: { pageSize: 100 },
      })
    ).body.findings as {
      scanId: string;
      findingPluginId: string;
      findingHash: string;
      issueId: string;
      findingUrl: string;
    }[];
    const xss = rows.filter((r) => new URL(r.findingUrl).pathname === '/search');
    expect(xss.map((r) => r.scanId).sort()).toEqual([zap.scanId, nuclei.scanId].sort());
    expect(new Set(xss.map((r) => r.issueId)).size).toBe(1);
    const zapXss = xss.find((r) => r.scanId === zap.scanId)!;
    const nucleiXss = xss.find((r) => r.scanId === nuclei.scanId)!;

    const promoteAt = async (pluginId: string) => {
      const out = await call('POST', `/api/v1/app/${appId}/alerts/rules/${trackerId}`, {
        token: tenant.token,
        body: {
          alertRuleWrapper: {
            alertRule: [
              {
                alertCondition: { environmentId: envId, pluginId, requestMethod: 'GET' },
                path: '/search',
                result: 'PROMOTED',
                note: `promoted through ${pluginId}`,
              },
            ],
          },
        },
      });
      expect(out.status, out.text).toBe(200);
    };
    // ZAP's detection promoted: one ticket, the issue's, shown on Nuclei's detection too.
    await promoteAt(zapXss.findingPluginId);
    const view = (scanId: string, pluginId: string) =>
      until(
        () => findingView(tenant, scanId, pluginId),
        (v) => Boolean(v.ticketKey),
      );
    const onZap = await view(zap.scanId, zapXss.findingPluginId);
    const onNuclei = await view(nuclei.scanId, nucleiXss.findingPluginId);
    expect(fake.issues).toHaveLength(1);
    const issue = fake.issues[0]!;
    for (const v of [onZap, onNuclei])
      expect(v).toMatchObject({ status: 'PROMOTED', ticketKey: issue.key, ticketStatus: 'OPEN' });
    const ticket = (await ticketOf(appId, envId, nucleiXss.findingHash))!;
    expect(ticket).toMatchObject({ issueId: zapXss.issueId, findingHash: zapXss.findingHash, state: 'OPEN' });

    // Nuclei's detection promoted itself: its issue has its ticket, so no second one.
    await promoteAt(nucleiXss.findingPluginId);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // time for a duplicate to show, were there one
    expect(fake.issues).toHaveLength(1);
    expect(creations(fake)).toHaveLength(1);

    // ZAP no longer finds it, Nuclei still does: the issue is there, the ticket stays open and counts no miss.
    const zap2 = await imported(zapReport(false), 'application/json');
    const counted = await until(
      () => ticketOf(appId, envId, zapXss.findingHash),
      (t) => t?.lastScanId === zap2.scanId,
    );
    expect(counted).toMatchObject({ state: 'OPEN', missedScans: 0 });
    expect(issue.category).toBe('new');

    // Nuclei no longer finds it either: the issue is gone, and the ticket closes (closeAfterScans 1).
    const nuclei2 = await imported(nucleiReport(false), 'text/plain');
    const closed = await until(
      () => ticketOf(appId, envId, zapXss.findingHash),
      (t) => t?.state === 'CLOSED',
    );
    expect(closed).toMatchObject({ closedBy: 'service', missedScans: 1, lastScanId: nuclei2.scanId });
    expect(issue.category).toBe('done');
    expect(fake.violations).toEqual([]);
  });
});

describe('credentials', () => {
  it('appear in no answer, no logged error and no item of the table', async () => {
    expect(tokens.length).toBeGreaterThan(5);
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName: config.tableName, ExclusiveStartKey: start }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    const table = JSON.stringify(items);
    const file = inject('serverErrorLog');
    const logged = file && existsSync(file) ? readFileSync(file, 'utf8') : '';
    const basic = (token: string) => Buffer.from(`bot@example.test:${token}`).toString('base64');
    for (const token of tokens) {
      for (const secret of [token, basic(token)]) {
        expect(table).not.toContain(secret);
        expect(logged).not.toContain(secret);
        for (const answer of answers) expect(answer).not.toContain(secret);
      }
    }
  });
});
