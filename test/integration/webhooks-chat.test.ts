import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { alert, completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { startSlackFake, startTeamsFake, type FakeRequest } from './chat-fakes.ts';

// The `slack` and `teams` formats (docs/WEBHOOKS.md, Payloads) delivered to loopback fakes of a Slack incoming
// webhook and a Teams Workflows webhook (test/integration/chat-fakes.ts), which check each body as the real service
// does and answer as it answers: rate limits, failures and a receiver that never answers included.

const hooks = (orgId: string) => `/api/v1/org/${orgId}/webhooks`;

async function subscribe(tenant: Tenant, url: string, format: 'slack' | 'teams', events: string[]) {
  const allow = await api('PUT', `/api/v1/org/${tenant.orgId}/integrations/settings`, {
    token: tenant.token,
    body: { allowPrivateNetworks: true },
  });
  expect(allow.status).toBe(200);
  const created = await api('POST', hooks(tenant.orgId), { token: tenant.token, body: { url, format, events } });
  expect(created.status, created.text).toBe(200);
  expect(created.body.webhook.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/…$/); // the path is the credential
  return created.body.webhook.id as string;
}

async function until<T>(what: () => Promise<T> | T, ok: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (ok(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const deliveries = async (tenant: Tenant, webhookId: string) =>
  (await api('GET', `${hooks(tenant.orgId)}/${webhookId}/deliveries`, { token: tenant.token })).body
    .deliveries as any[];

/** A scan of `appId` with 2 High and 1 Low findings, completed. */
async function scanWithFindings(tenant: Tenant, appId: string) {
  const { scanId, envId } = await startScan(tenant.token, appId);
  await reportAlerts(tenant.token, scanId, [alert('10038', 'High', 2), alert('10020', 'Low', 1)]);
  await completeScan(tenant.token, scanId);
  return { scanId, envId };
}

const slackFields = (request: FakeRequest) =>
  request.body.blocks.flatMap((b: any) => (b.fields ?? []).map((f: any) => f.text as string));

describe('Slack incoming webhook', () => {
  it('gets exactly one valid Block Kit message when a scan completes, with its figures', async () => {
    const slack = await startSlackFake();
    try {
      const tenant = await createTenant();
      const webhookId = await subscribe(tenant, slack.url, 'slack', ['scanCompleted']);
      const appId = await createApp(tenant, { name: 'shop', env: 'dev' });
      await scanWithFindings(tenant, appId);
      await until(
        () => slack.received,
        (r) => r.length >= 1,
      );
      await new Promise((resolve) => setTimeout(resolve, 1500)); // time for a duplicate to show, were there one
      expect(slack.received).toHaveLength(1);
      const [message] = slack.received;
      expect(message.problems).toEqual([]);
      expect(message.headers['x-hawk-event']).toBe('scanCompleted');
      expect(message.body.text).toBe('Scan completed: shop / dev');
      expect(message.body.blocks[0]).toEqual({
        type: 'header',
        text: { type: 'plain_text', text: 'Scan completed: shop / dev' },
      });
      expect(slackFields(message)).toEqual(
        expect.arrayContaining(['Findings\nHigh 2 · Medium 0 · Low 1', 'Application\nshop', 'Environment\ndev']),
      );
      const [delivery] = await until(
        () => deliveries(tenant, webhookId),
        (d) => d[0]?.status === 'DELIVERED',
      );
      expect(delivery).toMatchObject({ status: 'DELIVERED', attemptCount: 1 });
      expect(delivery.attempts[0]).toMatchObject({ statusCode: 200, responseExcerpt: 'ok' });
    } finally {
      await slack.close();
    }
  });

  it('honours a 429 Retry-After: the next attempt waits at least that long, then the message is posted once', async () => {
    const slack = await startSlackFake((n) => (n === 1 ? { status: 429, retryAfter: 2 } : { status: 200 }));
    try {
      const tenant = await createTenant();
      const webhookId = await subscribe(tenant, slack.url, 'slack', ['scanStarted']);
      await startScan(tenant.token, await createApp(tenant));
      const log = await until(
        () => deliveries(tenant, webhookId),
        (d) => d[0]?.status === 'DELIVERED',
      );
      expect(log[0].attempts.map((a: any) => [a.statusCode, a.retryAfterMs])).toEqual([
        [429, 2000],
        [200, 0],
      ]);
      // WEBHOOK_RETRY_BASE_MS is 200 ms in the tests: only Retry-After explains a 2 s wait.
      expect(slack.received[1].at - slack.received[0].at).toBeGreaterThanOrEqual(2000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(slack.received).toHaveLength(2);
      expect(slack.received.every((r) => r.problems.length === 0)).toBe(true);
    } finally {
      await slack.close();
    }
  });

  it('retries a 5xx until Slack takes the message', async () => {
    const slack = await startSlackFake((n) => (n === 1 ? { status: 500 } : { status: 200 }));
    try {
      const tenant = await createTenant();
      const webhookId = await subscribe(tenant, slack.url, 'slack', ['scanStarted']);
      await startScan(tenant.token, await createApp(tenant));
      const log = await until(
        () => deliveries(tenant, webhookId),
        (d) => d[0]?.status === 'DELIVERED',
      );
      expect(log[0].attempts.map((a: any) => [a.statusCode, a.responseExcerpt])).toEqual([
        [500, 'internal_error'],
        [200, 'ok'],
      ]);
      expect(slack.received).toHaveLength(2);
      expect(slack.received[0].raw).toBe(slack.received[1].raw);
    } finally {
      await slack.close();
    }
  });

  it('a receiver that never answers does not hold up the scan it reports on', async () => {
    const slack = await startSlackFake(() => 'hang');
    try {
      const tenant = await createTenant();
      await subscribe(tenant, slack.url, 'slack', ['scanStarted', 'scanCompleted']);
      const appId = await createApp(tenant);
      const { scanId } = await startScan(tenant.token, appId);
      await until(
        () => slack.hanging(),
        (n) => n >= 1,
      );
      // The scanStarted message is still held by the receiver while the scan is reported and completed.
      await reportAlerts(tenant.token, scanId, [alert('10038', 'High', 1)]);
      await completeScan(tenant.token, scanId);
      expect(slack.hanging()).toBeGreaterThanOrEqual(1);
      const scans = await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token });
      expect(scans.status).toBe(200);
      expect(scans.body.applicationScanResults[0].scan).toMatchObject({ id: scanId, status: 'COMPLETED' });
    } finally {
      await slack.close();
    }
  });

  it('keeps a finding with a long path within Block Kit limits, and a test message is valid too', async () => {
    const slack = await startSlackFake();
    try {
      const tenant = await createTenant();
      const webhookId = await subscribe(tenant, slack.url, 'slack', ['findingStatusChanged']);
      const appId = await createApp(tenant, { name: 'a&b <shop>', env: 'dev' });
      const { scanId, envId } = await startScan(tenant.token, appId);
      const long = alert('10038', 'High', 1);
      long.uris[0].uri = `/${'segment/'.repeat(900)}end`; // 8,104 characters: a URI the API takes
      await reportAlerts(tenant.token, scanId, [long]);
      await completeScan(tenant.token, scanId);
      const findings = await api('GET', `/api/v1/scan/${scanId}/alert/10038`, { token: tenant.token });
      const findingHash = findings.body.applicationScanAlertUris[0].findingHash;
      const triage = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
        token: tenant.token,
        body: { actions: [{ findingHash, status: 'RISK_ACCEPTED', note: 'internal only' }] },
      });
      expect(triage.status, triage.text).toBe(200);
      await until(
        () => slack.received,
        (r) => r.length >= 1,
      );
      const [message] = slack.received;
      expect(message.problems).toEqual([]);
      const finding = slackFields(message).find((f: string) => f.startsWith('Finding\n'))!;
      expect(finding.length).toBeLessThanOrEqual(2000);
      expect(finding).toMatch(/^Finding\n10038 GET \/segment\/segment\/.*…$/s);
      expect(slackFields(message)).toContain('Application\na&b <shop>'); // plain_text: shown as is
      expect(message.body.text).toBe('Finding triaged: a&amp;b &lt;shop&gt; / dev');

      const tested = await api('POST', `${hooks(tenant.orgId)}/${webhookId}/test`, { token: tenant.token });
      expect(tested.body.delivery).toMatchObject({ status: 'DELIVERED', event: 'ping' });
      expect(slack.received[1].problems).toEqual([]);
      expect(slack.received[1].body.text).toMatch(/^Test message from hawk-api/);
    } finally {
      await slack.close();
    }
  });

  it('shows hostile application, environment and path names as written: no formatting, link or mention of theirs', async () => {
    const slack = await startSlackFake();
    try {
      const tenant = await createTenant();
      await subscribe(tenant, slack.url, 'slack', ['findingStatusChanged']);
      const app = '*bold* _it_ ~gone~ `code` <https://evil.test|click> <!channel>';
      const appId = await createApp(tenant, { name: app, env: '> quoted *env*' });
      const { scanId, envId } = await startScan(tenant.token, appId, { env: '> quoted *env*' });
      const hostile = alert('10038', 'High', 1);
      hostile.uris[0].uri = '/a/*b*/_c_/`d`';
      await reportAlerts(tenant.token, scanId, [hostile]);
      await completeScan(tenant.token, scanId);
      const findings = await api('GET', `/api/v1/scan/${scanId}/alert/10038`, { token: tenant.token });
      const findingHash = findings.body.applicationScanAlertUris[0].findingHash;
      const triage = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
        token: tenant.token,
        body: { actions: [{ findingHash, status: 'FALSE_POSITIVE', note: 'n' }] },
      });
      expect(triage.status, triage.text).toBe(200);
      const [message] = await until(
        () => slack.received,
        (r) => r.length >= 1,
      );
      expect(message.problems).toEqual([]);
      // The notification text is not formatted; its three control characters are escaped as Slack asks.
      expect(message.body.mrkdwn).toBe(false);
      expect(message.body.text).toBe(
        'Finding triaged: *bold* _it_ ~gone~ `code` &lt;https://evil.test|click&gt; &lt;!channel&gt; / &gt; quoted *env*',
      );
      // Every field is plain_text: Slack shows it as written (mrkdwn could not escape *, _, ~ or backticks).
      const fields = message.body.blocks.flatMap((b: any) => b.fields ?? []);
      expect(fields.map((f: any) => f.type)).toEqual(fields.map(() => 'plain_text'));
      expect(fields.map((f: any) => f.text)).toEqual([
        `Application\n${app}`,
        'Environment\n> quoted *env*',
        'Finding\n10038 GET /a/*b*/_c_/`d`',
        'Status\nUNKNOWN → FALSE_POSITIVE',
      ]);
    } finally {
      await slack.close();
    }
  });
});

describe('Teams Workflows webhook', () => {
  it('gets one Adaptive Card message per completed scan, answered 202, and a valid test card', async () => {
    const teams = await startTeamsFake();
    try {
      const tenant = await createTenant();
      const webhookId = await subscribe(tenant, teams.url, 'teams', ['scanCompleted']);
      const appId = await createApp(tenant, { name: 'shop', env: 'dev' });
      await scanWithFindings(tenant, appId);
      const [delivery] = await until(
        () => deliveries(tenant, webhookId),
        (d) => d[0]?.status === 'DELIVERED',
      );
      expect(delivery.attempts[0]).toMatchObject({ statusCode: 202, responseExcerpt: '' });
      expect(teams.received).toHaveLength(1);
      const [message] = teams.received;
      expect(message.problems).toEqual([]);
      const card = message.body.attachments[0].content;
      expect(card.body[0]).toMatchObject({ type: 'TextBlock', text: 'Scan completed: shop / dev' });
      expect(card.body[1].facts).toEqual(
        expect.arrayContaining([{ title: 'Findings', value: 'High 2 · Medium 0 · Low 1' }]),
      );

      const tested = await api('POST', `${hooks(tenant.orgId)}/${webhookId}/test`, { token: tenant.token });
      expect(tested.body.delivery).toMatchObject({ status: 'DELIVERED', event: 'ping' });
      expect(teams.received[1].problems).toEqual([]);
    } finally {
      await teams.close();
    }
  });

  it('shows hostile application, environment and path names as text: no link, image or emphasis of theirs', async () => {
    const teams = await startTeamsFake();
    try {
      const tenant = await createTenant();
      await subscribe(tenant, teams.url, 'teams', ['scanCompleted', 'findingStatusChanged']);
      const appId = await createApp(tenant, {
        name: '[click](https://evil.test) ![](https://evil.test/p.png)',
        env: 'dev',
      });
      const { scanId, envId } = await startScan(tenant.token, appId, { env: '**urgent** _now_' });
      const hostile = alert('10038', 'High', 1);
      hostile.uris[0].uri = '/a/![x](https://evil.test/i.png)/<b>`c`</b>'; // stored with "//" as "/"
      await reportAlerts(tenant.token, scanId, [hostile]);
      await completeScan(tenant.token, scanId);
      const findings = await api('GET', `/api/v1/scan/${scanId}/alert/10038`, { token: tenant.token });
      const findingHash = findings.body.applicationScanAlertUris[0].findingHash;
      const triage = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
        token: tenant.token,
        body: { actions: [{ findingHash, status: 'FALSE_POSITIVE', note: 'n' }] },
      });
      expect(triage.status, triage.text).toBe(200);
      await until(
        () => teams.received,
        (r) => r.length >= 2,
      );
      expect(teams.received.map((r) => r.problems)).toEqual([[], []]);
      const cards = teams.received.map((r) => r.body.attachments[0].content);
      const facts = (card: any) => Object.fromEntries(card.body[1].facts.map((f: any) => [f.title, f.value]));
      const completed = cards.find((c) => c.body[0].text.startsWith('Scan completed'))!;
      expect(completed.body[0].text).toBe(
        'Scan completed: \\[click\\]\\(https://evil.test\\) \\!\\[\\]\\(https://evil.test/p.png\\) / \\*\\*urgent\\*\\* \\_now\\_',
      );
      expect(facts(completed)).toMatchObject({
        Application: '\\[click\\]\\(https://evil.test\\) \\!\\[\\]\\(https://evil.test/p.png\\)',
        Environment: '\\*\\*urgent\\*\\* \\_now\\_',
      });
      const triaged = cards.find((c) => c.body[0].text.startsWith('Finding triaged'))!;
      expect(facts(triaged)).toMatchObject({
        Finding: '10038 GET /a/\\!\\[x\\]\\(https:/evil.test/i.png\\)/\\<b\\>\\`c\\`\\</b\\>',
        Status: 'UNKNOWN → FALSE\\_POSITIVE',
      });
      // No text of either card holds an unescaped link, image or emphasis opener.
      const texts = cards.flatMap((c) => [c.body[0].text, ...c.body[1].facts.flatMap((f: any) => [f.title, f.value])]);
      for (const text of texts) expect(text).not.toMatch(/(^|[^\\])[[*_`<!]/);
    } finally {
      await teams.close();
    }
  });
});
