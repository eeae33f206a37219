import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { createApp, pluginAlert, scanOnce } from './scan-helpers.ts';
import { expireRiskAcceptances } from '../../shared/findings/risk-expiry.ts';
import { DAY_MS } from '../../shared/governance/model.ts';
import { QUERY_FROM_FINDINGS } from '../../shared/governance/due-dates.ts';
import { getItem } from '../../shared/db/query.ts';
import { keys } from '../../shared/db/keys.ts';

// Findings governance over HTTP (docs/GOVERNANCE.md): the SLA policy, due dates in the findings report across triage
// changes, rescans, fixes and reopenings, and risk acceptances that expire (once, audited, with their event).

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
    expect(denied.status).toBe(401); // a missing permission answers 401, deliberately vague (docs/API.md, Errors)
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
    const first = await scanOnce(tenant.token, appId, [
      pluginAlert('40018', 'High', ['/a']),
      pluginAlert('10038', 'Medium', ['/b']),
      pluginAlert('10020', 'Info', ['/c']),
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
    const rescan = await scanOnce(tenant.token, appId, [pluginAlert('40018', 'High', ['/a'])]);
    expect((await rowOf(tenant, '/a')).dueDate).toBe(after.dueDate);
    // The alert's page of findings gives it too, on the environment's current scan only.
    const alertPage = async (scanId: string) =>
      (await api('GET', `/api/v1/scan/${scanId}/alert/40018`, { token: tenant.token })).body
        .applicationScanAlertUris[0];
    expect(await alertPage(rescan.scanId)).toMatchObject({ dueDate: after.dueDate, daysLeft: 6, overdue: false });
    expect(await alertPage(first.scanId)).toMatchObject({ dueDate: '', daysLeft: 0, overdue: false });
    await scanOnce(tenant.token, appId, [pluginAlert('10038', 'Medium', ['/b'])]);
    expect(await rowOf(tenant, '/a')).toBeUndefined(); // fixed: not a current finding, nothing due
    await scanOnce(tenant.token, appId, [pluginAlert('40018', 'High', ['/a'])]);
    expect((await rowOf(tenant, '/a')).dueDate).toBe(after.dueDate);

    // CSV: the due date, days left and the triage columns (before the columns, docs/ISSUES.md).
    const csv = await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, {
      token: tenant.token,
      headers: { accept: 'text/csv' },
    });
    const header = csv.text.split('\r\n')[0].split(',');
    expect(header.slice(-9, -2)).toEqual([
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

describe('SLA due dates of a whole scan', () => {
  it("a scan's many findings (read in one query of the environment's records) get the due dates of the report", async () => {
    const tenant = await createTenant();
    await setSla(tenant, { days: { High: 7, Medium: 30, Low: 90 } });
    const appId = await createApp(tenant, { name: 'sla many', env: 'dev' });
    const old = Array.from({ length: QUERY_FROM_FINDINGS + 8 }, (_, i) => `/old/${i}`);
    const fresh = ['/new/1', '/new/2', '/new/3'];
    await scanOnce(tenant.token, appId, [pluginAlert('40018', 'High', old)]);
    await new Promise((r) => setTimeout(r, 20));
    const rescan = await scanOnce(tenant.token, appId, [pluginAlert('40018', 'High', [...old, ...fresh])]);

    // The alert's page (the scan's due dates, from the findings' first sightings) and the findings report (read by
    // key, page by page) agree on every finding; old ones count from the first scan, new ones from the rescan.
    const page = await api('GET', `/api/v1/scan/${rescan.scanId}/alert/40018`, {
      token: tenant.token,
      query: { pageSize: 100 },
    });
    expect(page.status, page.text).toBe(200);
    const fromPage = new Map(
      (page.body.applicationScanAlertUris as Row[]).map((u) => [`https://target.test${u.uri}`, u.dueDate]),
    );
    const report = await rows(tenant);
    expect(report).toHaveLength(old.length + fresh.length);
    expect(fromPage.size).toBe(report.length);
    for (const row of report) expect(fromPage.get(row.findingUrl), row.findingUrl).toBe(row.dueDate);
    const dueOf = (path: string) => report.find((r) => r.findingUrl === `https://target.test${path}`)!.dueDate;
    expect(new Set(old.map(dueOf)).size).toBe(1);
    expect(new Set(fresh.map(dueOf)).size).toBe(1);
    expect(Date.parse(dueOf('/new/1')) - Date.parse(dueOf('/old/0'))).toBeGreaterThanOrEqual(20);
  });
});

describe('SLA overrides per application and environment', () => {
  it("the environment's days, else the application's, else the organization's, severity by severity", async () => {
    const tenant = await createTenant();
    await setSla(tenant, { days: { High: 7, Medium: 30, Low: 90 } });
    const appId = await createApp(tenant, { name: 'strict', env: 'dev' });
    const otherAppId = await createApp(tenant, { name: 'relaxed', env: 'dev' });
    const findings = [
      pluginAlert('40018', 'High', ['/h']),
      pluginAlert('10038', 'Medium', ['/m']),
      pluginAlert('10021', 'Low', ['/l']),
    ];
    const dev = await scanOnce(tenant.token, appId, findings);
    const prod = await scanOnce(tenant.token, appId, findings, 'prod');
    await scanOnce(tenant.token, otherAppId, findings);
    const sla = (path: string, body?: unknown, method = body ? 'PUT' : 'GET', token = tenant.token) =>
      api(method as 'GET', `/api/v1/app/${appId}${path}/sla`, { token, body });

    // Bad input: 400 naming what is wrong, nothing stored.
    for (const [body, message] of [
      [{ days: {} }, /at least one of High, Medium, Low/],
      [{ days: { High: 0 } }, /days\.High/],
      [{ days: { high: 3 } }, /high/],
      [{}, /days/],
    ] as const) {
      const refused = await sla('', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.message).toMatch(message);
    }
    const untouched = await sla('');
    expect(untouched.status, untouched.text).toBe(200);
    expect(untouched.body).toMatchObject({
      override: { High: 0, Medium: 0, Low: 0 },
      days: { High: 7, Medium: 30, Low: 90 },
      organizationDays: { High: 7, Medium: 30, Low: 90 },
    });

    const app = await sla('', { days: { High: 3 } });
    expect(app.status, app.text).toBe(200);
    expect(app.body).toMatchObject({
      override: { High: 3, Medium: 0, Low: 0 },
      days: { High: 3, Medium: 30, Low: 90 },
    });
    const env = await sla(`/env/${prod.envId}`, { days: { Medium: 5 } });
    expect(env.status, env.text).toBe(200);
    const byName = Object.fromEntries(env.body.environments.map((e: Row) => [e.environmentName, e]));
    expect(byName.prod).toMatchObject({
      override: { High: 0, Medium: 5, Low: 0 },
      days: { High: 3, Medium: 5, Low: 90 },
    });
    expect(byName.dev).toMatchObject({
      override: { High: 0, Medium: 0, Low: 0 },
      days: { High: 3, Medium: 30, Low: 90 },
    });

    // The findings report counts each finding's due date with the days of its place.
    const dueDays = async () => {
      const out: Record<string, number> = {};
      for (const r of await rows(tenant))
        if (r.dueDate)
          out[`${r.applicationName}/${r.environmentName}${new URL(r.findingUrl).pathname}`] = Math.round(
            (Date.parse(r.dueDate) - Number(r.findingFirstSeen)) / DAY_MS,
          );
      return out;
    };
    expect(await dueDays()).toEqual({
      'strict/dev/h': 3,
      'strict/dev/m': 30,
      'strict/dev/l': 90,
      'strict/prod/h': 3,
      'strict/prod/m': 5,
      'strict/prod/l': 90,
      'relaxed/dev/h': 7,
      'relaxed/dev/m': 30,
      'relaxed/dev/l': 90,
    });

    // Audited; only write:policy may change it; another organization cannot even find the application.
    const entries = (await audits(tenant)).filter((e) => e.userActivityType === 'APPLICATION_POLICY_MODIFIED');
    const payloads = entries.map((e) => JSON.parse(e.payload));
    expect(payloads).toHaveLength(2);
    expect(payloads).toContainEqual({ policy: 'sla', applicationId: appId, appName: 'strict', days: { High: 3 } });
    expect(payloads).toContainEqual({
      policy: 'sla',
      applicationId: appId,
      appName: 'strict',
      environmentId: prod.envId,
      envName: 'prod',
      days: { Medium: 5 },
    });
    const reader = await addUserTo(tenant.orgId, ['read:policy']);
    expect((await sla('', undefined, 'GET', reader.token)).status).toBe(200);
    expect((await sla('', { days: { High: 1 } }, 'PUT', reader.token)).status).toBe(401);
    const other = await createTenant();
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const out = await sla('', method === 'PUT' ? { days: { High: 1 } } : undefined, method, other.token);
      expect(out.status, method).toBe(404);
    }
    const elsewhere = await api('PUT', `/api/v1/app/${appId}/env/${randomUUID()}/sla`, {
      token: tenant.token,
      body: { days: { High: 1 } },
    });
    expect(elsewhere.status).toBe(404);

    // Removing an override: the next scope's days apply again; removing it twice is 404.
    expect((await sla('', undefined, 'DELETE')).status).toBe(200);
    expect((await sla('', undefined, 'DELETE')).body.message).toMatch(/has no SLA override/);
    expect(await dueDays()).toMatchObject({ 'strict/dev/h': 7, 'strict/prod/h': 7, 'strict/prod/m': 5 });

    // Deleting the environment deletes its override with its data.
    expect(await getItem(keys.environmentSla(appId, prod.envId))).toBeDefined();
    expect((await api('DELETE', `/api/v1/app/${appId}/env/${prod.envId}`, { token: tenant.token })).status).toBe(200);
    expect(await getItem(keys.environmentSla(appId, prod.envId))).toBeUndefined();
    expect(dev.envId).not.toBe(prod.envId);
  });
});

describe('risk acceptance that expires', () => {
  it('refuses an expiry in the past, beyond the maximum or on another status (400, nothing changed)', async () => {
    const tenant = await createTenant();
    await setSla(tenant, { days: { High: 7, Medium: 30, Low: 90 }, riskAcceptance: { defaultDays: 10, maxDays: 30 } });
    const appId = await createApp(tenant, { name: 'accept', env: 'dev' });
    const scan = await scanOnce(tenant.token, appId, [pluginAlert('40018', 'High', ['/a', '/b'])]);
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
    const scan = await scanOnce(tenant.token, appId, [pluginAlert('40018', 'High', ['/soon', '/later'])]);
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
