import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { expireRiskAcceptances } from '../../shared/governance/expiry.ts';
import { DAY_MS } from '../../shared/governance/clock.ts';

// Findings governance over HTTP (docs/GOVERNANCE.md): the SLA policy, due dates in the findings report across triage
// changes, rescans, fixes and reopenings, and risk acceptances that expire (once, audited, with their event).

const uri = (path: string) => ({
  uri: path,
  requestMethod: 'GET',
  param: 'id',
  evidence: '',
  otherInfo: '',
  requestHeader: '',
  requestBody: '',
  responseHeader: '',
  responseBody: '',
});
const plugin = (pluginId: string, severity: string, paths: string[]) => ({
  pluginId,
  name: `Plugin ${pluginId}`,
  severity,
  description: `About ${pluginId}`,
  cweId: '89',
  uris: paths.map(uri),
});

async function scanOnce(tenant: Pick<Tenant, 'token'>, appId: string, alerts: unknown[]) {
  const started = await startScan(tenant.token, appId, { env: 'dev' });
  await reportAlerts(tenant.token, started.scanId, alerts);
  await completeScan(tenant.token, started.scanId);
  return started;
}

type Row = Record<string, any>;
const rows = async (tenant: Tenant): Promise<Row[]> => {
  const out = await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, { token: tenant.token });
  expect(out.status, out.text).toBe(200);
  return out.body.findings;
};
const rowOf = async (tenant: Tenant, path: string) =>
  (await rows(tenant)).find((r) => r.findingUrl === `https://target.test${path}`)!;
const triage = (tenant: Tenant, appId: string, envId: string, actions: unknown[]) =>
  api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
    token: tenant.token,
    body: { actions },
  });
const setSla = (tenant: Tenant, body: unknown) =>
  api('PUT', `/api/v1/org/${tenant.orgId}/sla`, { token: tenant.token, body });
const audits = async (tenant: Tenant) =>
  (await api('GET', `/api/v1/org/${tenant.orgId}/audit`, { token: tenant.token, query: { pageSize: 100 } })).body
    .auditRecords as { userActivityType: string; userName: string; payload: string }[];
const until = async (check: () => Promise<boolean>, ms = 20_000) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 250)))
    if (await check()) return;
  throw new Error('timed out');
};

describe('SLA policy', () => {
  it('answers the defaults until set; PUT sets it with its audit entry; bad input is 400; read/write:policy', async () => {
    const tenant = await createTenant();
    const initial = await api('GET', `/api/v1/org/${tenant.orgId}/sla`, { token: tenant.token });
    expect(initial.status).toBe(200);
    expect(initial.body).toMatchObject({
      configured: false,
      days: { High: 30, Medium: 90, Low: 180 },
      riskAcceptance: { defaultDays: 0, maxDays: 0 },
    });
    for (const [body, message] of [
      [{ days: { High: 0, Medium: 1, Low: 1 } }, /days\.High/],
      [{ days: { High: 1, Medium: 1 } }, /days\.Low/],
      [{ days: { High: 1.5, Medium: 1, Low: 1 } }, /days\.High/],
      [{ days: { High: 1, Medium: 1, Low: 1 }, riskAcceptance: { defaultDays: 30, maxDays: 10 } }, /defaultDays/],
    ] as const) {
      const refused = await setSla(tenant, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.message).toMatch(message);
    }
    const set = await setSla(tenant, { days: { High: 7, Medium: 30, Low: 90 }, riskAcceptance: { maxDays: 60 } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ configured: true, days: { High: 7, Medium: 30, Low: 90 } });
    expect((await api('GET', `/api/v1/org/${tenant.orgId}/sla`, { token: tenant.token })).body).toMatchObject({
      configured: true,
      days: { High: 7, Medium: 30, Low: 90 },
      riskAcceptance: { defaultDays: 0, maxDays: 60 },
      updatedBy: tenant.userId,
    });
    const [entry] = await audits(tenant);
    expect(entry.userActivityType).toBe('ORGANIZATION_POLICY_MODIFIED');
    expect(JSON.parse(entry.payload)).toMatchObject({ policy: 'sla', days: { High: 7, Medium: 30, Low: 90 } });

    const reader = await addUserTo(tenant.orgId, ['read:policy']);
    expect((await api('GET', `/api/v1/org/${tenant.orgId}/sla`, { token: reader.token })).status).toBe(200);
    const denied = await api('PUT', `/api/v1/org/${tenant.orgId}/sla`, {
      token: reader.token,
      body: { days: { High: 1, Medium: 1, Low: 1 } },
    });
    expect(denied.status).toBe(401); // a missing permission answers 401, deliberately vague (README, Errors)
    // Another organization's policy is not reachable.
    const other = await createTenant();
    expect((await setSla({ ...other, orgId: tenant.orgId }, { days: { High: 1, Medium: 1, Low: 1 } })).status).toBe(
      401,
    );
  });
});

describe('due dates in the findings report', () => {
  it('counts from the first sighting, stops while false positive, resumes when reopened, survives rescans', async () => {
    const tenant = await createTenant();
    await setSla(tenant, { days: { High: 7, Medium: 30, Low: 90 } });
    const appId = await createApp(tenant, { name: 'sla', env: 'dev' });
    const first = await scanOnce(tenant, appId, [
      plugin('40018', 'High', ['/a']),
      plugin('10038', 'Medium', ['/b']),
      plugin('10020', 'Info', ['/c']),
    ]);
    const a = await rowOf(tenant, '/a');
    const firstSeen = Number(a.findingFirstSeen);
    expect(a).toMatchObject({ dueDate: new Date(firstSeen + 7 * DAY_MS).toISOString(), daysLeft: 6, overdue: false });
    expect((await rowOf(tenant, '/b')).dueDate).toBe(new Date(firstSeen + 30 * DAY_MS).toISOString());
    expect(await rowOf(tenant, '/c')).toMatchObject({ dueDate: '', daysLeft: 0 }); // Info: no SLA

    // A false positive has no due date; reopened, its clock goes on from where it stopped.
    await triage(tenant, appId, first.envId, [{ findingHash: a.findingHash, status: 'FALSE_POSITIVE', note: 'fp' }]);
    expect(await rowOf(tenant, '/a')).toMatchObject({ status: 'FALSE_POSITIVE', dueDate: '', triageNote: 'fp' });
    await new Promise((r) => setTimeout(r, 50));
    const reopened = await api('POST', `/api/v1/app/${appId}/alerts/rules/${randomUUID()}`, {
      token: tenant.token,
      body: {
        alertRules: [
          {
            alertCondition: { environmentId: first.envId, pluginId: '40018', requestMethod: 'GET' },
            path: '/a',
            result: 'UNKNOWN',
            note: 'not a false positive',
          },
        ],
      },
    });
    expect(reopened.status, reopened.text).toBe(200);
    const [reopen, falsePositive] = reopened.body.alertRules[0].alertRuleHistories;
    const stopped = Number(reopen.timestamp) - Number(falsePositive.timestamp);
    expect(stopped).toBeGreaterThanOrEqual(50);
    const after = await rowOf(tenant, '/a');
    expect(after).toMatchObject({
      status: 'NEW',
      dueDate: new Date(firstSeen + 7 * DAY_MS + stopped).toISOString(),
      triagedBy: tenant.userId,
      triagedByName: 'Test User',
      triageNote: 'not a false positive',
    });

    // A rescan keeps the first sighting; a finding fixed and found again keeps it too (docs/GOVERNANCE.md).
    await scanOnce(tenant, appId, [plugin('40018', 'High', ['/a'])]);
    expect((await rowOf(tenant, '/a')).dueDate).toBe(after.dueDate);
    await scanOnce(tenant, appId, [plugin('10038', 'Medium', ['/b'])]);
    expect(await rowOf(tenant, '/a')).toBeUndefined(); // fixed: not a current finding, nothing due
    await scanOnce(tenant, appId, [plugin('40018', 'High', ['/a'])]);
    expect((await rowOf(tenant, '/a')).dueDate).toBe(after.dueDate);

    // CSV: the due date, days left and the triage columns.
    const csv = await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, {
      token: tenant.token,
      headers: { accept: 'text/csv' },
    });
    const header = csv.text.split('\r\n')[0].split(',');
    expect(header.slice(-7)).toEqual([
      'dueDate',
      'daysLeft',
      'overdue',
      'triagedBy',
      'triagedAt',
      'triageNote',
      'riskAcceptedUntil',
    ]);
    const [row] = parse(csv.text, { columns: true }) as Row[];
    expect(row).toMatchObject({ dueDate: after.dueDate, daysLeft: '6', overdue: 'false', triagedBy: 'Test User' });
  });
});

describe('risk acceptance that expires', () => {
  it('refuses an expiry in the past, beyond the maximum or on another status (400, nothing changed)', async () => {
    const tenant = await createTenant();
    await setSla(tenant, { days: { High: 7, Medium: 30, Low: 90 }, riskAcceptance: { defaultDays: 10, maxDays: 30 } });
    const appId = await createApp(tenant, { name: 'accept', env: 'dev' });
    const scan = await scanOnce(tenant, appId, [plugin('40018', 'High', ['/a', '/b'])]);
    const [a, b] = [await rowOf(tenant, '/a'), await rowOf(tenant, '/b')];
    const ok = { findingHash: b.findingHash, status: 'RISK_ACCEPTED' };
    for (const [action, message] of [
      [{ ...ok, expiresAt: '2020-01-01T00:00:00Z' }, /actions\[1\]\.expiresAt: must be in the future/],
      [
        { ...ok, expiresAt: new Date(Date.now() + 31 * DAY_MS).toISOString() },
        /actions\[1\]\.expiresAt: must be at most 30 days ahead/,
      ],
      [{ ...ok, expiresAt: 'tomorrow' }, /expiresAt: must be an ISO 8601 date-time/],
      [
        { ...ok, status: 'FALSE_POSITIVE', expiresAt: new Date(Date.now() + DAY_MS).toISOString() },
        /only a RISK_ACCEPTED/,
      ],
    ] as const) {
      const refused = await triage(tenant, appId, scan.envId, [
        { findingHash: a.findingHash, status: 'RISK_ACCEPTED' },
        action,
      ]);
      expect(refused.status, JSON.stringify(action)).toBe(400);
      expect(refused.body.message).toMatch(message);
    }
    expect((await rows(tenant)).map((r) => r.status)).toEqual(['NEW', 'NEW']);

    // Without expiresAt: the default; with one within the maximum: that one. Visible in the report.
    const until = new Date(Date.now() + 20 * DAY_MS).toISOString();
    const accepted = await triage(tenant, appId, scan.envId, [
      { findingHash: a.findingHash, status: 'RISK_ACCEPTED', note: 'compensating control' },
      { ...ok, expiresAt: until },
    ]);
    expect(accepted.status, accepted.text).toBe(200);
    const defaultExpiry = Date.parse(accepted.body.results[0].expiresAt);
    expect(defaultExpiry - Date.parse(accepted.body.results[0].updatedAt)).toBe(10 * DAY_MS);
    expect(accepted.body.results[1].expiresAt).toBe(until);
    expect(await rowOf(tenant, '/a')).toMatchObject({
      status: 'RISK_ACCEPTED',
      dueDate: '',
      triagedBy: tenant.userId,
      triagedByName: 'Test User',
      triagedAt: accepted.body.results[0].updatedAt,
      triageNote: 'compensating control',
      riskAcceptedUntil: accepted.body.results[0].expiresAt,
    });
    // A comment keeps the acceptance and its expiry.
    await triage(tenant, appId, scan.envId, [{ findingHash: b.findingHash, status: 'ADD_COMMENT', note: 'still ok' }]);
    expect(await rowOf(tenant, '/b')).toMatchObject({ status: 'RISK_ACCEPTED', riskAcceptedUntil: until });
  });

  it('expires at its time without a scan: untriaged again, counted, audited and sent as an event, once', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'expiring', env: 'dev' });
    const scan = await scanOnce(tenant, appId, [plugin('40018', 'High', ['/soon', '/later'])]);
    const [soon, later] = [await rowOf(tenant, '/soon'), await rowOf(tenant, '/later')];
    const accepted = await triage(tenant, appId, scan.envId, [
      {
        findingHash: soon.findingHash,
        status: 'RISK_ACCEPTED',
        note: 'short',
        expiresAt: new Date(Date.now() + 1500).toISOString(),
      },
      {
        findingHash: later.findingHash,
        status: 'RISK_ACCEPTED',
        note: 'long',
        expiresAt: new Date(Date.now() + 2 * DAY_MS).toISOString(),
      },
    ]);
    expect(accepted.status, accepted.text).toBe(200);
    const untriaged = async () =>
      (await api('GET', `/api/v2/org/${tenant.orgId}/envs`, { token: tenant.token })).body.environments[0]
        .lastScanTotalUntriaged;
    expect(await untriaged()).toBe(0);

    // The service's own schedule (npm start's check, every second in the tests) expires the first.
    await until(async () => (await rowOf(tenant, '/soon')).status === 'NEW');
    expect(await rowOf(tenant, '/soon')).toMatchObject({
      status: 'NEW',
      triagedByName: 'hawk-api (risk acceptance expiry)',
      riskAcceptedUntil: '',
    });
    expect((await rowOf(tenant, '/later')).status).toBe('RISK_ACCEPTED');
    const expiries = async () =>
      (await audits(tenant)).filter(
        (e) => e.userActivityType === 'ALERT_RULE_TRIAGED' && JSON.parse(e.payload).riskAcceptanceExpired,
      );
    const [entry] = await expiries();
    expect(JSON.parse(entry.payload)).toMatchObject({
      findingHash: soon.findingHash,
      oldStatus: 'RISK_ACCEPTED',
      newStatus: 'UNKNOWN',
      acceptedBy: tenant.userId,
      acceptedUntil: accepted.body.results[0].expiresAt,
      acceptanceNote: 'short',
    });
    expect(entry.userName).toBe('hawk-api (risk acceptance expiry)');
    expect(await untriaged()).toBe(1);

    // Runs as of a later time (a controlled clock): the second acceptance expires; a run after it, as after a
    // restart (the check keeps nothing in memory), finds nothing more to do.
    const afterLater = Date.now() + 2 * DAY_MS + 60_000;
    await expireRiskAcceptances(afterLater);
    expect((await rowOf(tenant, '/later')).status).toBe('NEW');
    expect(await untriaged()).toBe(2);
    await expireRiskAcceptances(afterLater);
    await expireRiskAcceptances(afterLater + DAY_MS);
    await new Promise((r) => setTimeout(r, 1500)); // and the background schedule ran meanwhile
    expect((await expiries()).map((e) => JSON.parse(e.payload).findingHash).sort()).toEqual(
      [soon.findingHash, later.findingHash].sort(),
    );
  });
});
