import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { createTenant } from './fixtures.ts';
import { createApp } from './scan-helpers.ts';
import { alertUrisOf, at, importReport, readBack, zapAlert, zapOf } from './import-helpers.ts';
import { wapitiFixture } from '../../scanner/test/wapiti-expected.ts';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/client.ts';
import { config } from '../../shared/config.ts';
import { keys } from '../../shared/db/keys.ts';
import { collect } from '../../shared/db/query.ts';
import { findingsOfEnvironment, getTriageRule } from '../../shared/results/finding-repository.ts';
import type { FindingRecord } from '../../shared/results/model.ts';
import { migrationSteps } from '../../shared/table-migration.ts';
import { getDescriptionRoutes } from '../../shared/hosted-assets/repository.ts';

// One issue per weakness (docs/ISSUES.md): Wapiti's and ZAP's findings of the same weakness at the same place of one
// environment are one issue, detected by both; a triage applies to the issue, and carries to a later detection.

/** The real Wapiti 3.0.4 scan of the local node target (scanner/test/fixtures/wapiti/SOURCES.md, #2). */
const WAPITI = 'wapiti-xml_3.0.4_local-node-target_GENERATED-here.xml';

/**
 * ZAP's report of the same target: reflected XSS on `GET /search` `q` (CWE-79, Wapiti's "Cross Site Scripting"), the
 * `session` cookie without HttpOnly (CWE-1004, Wapiti's "HttpOnly Flag cookie") and a CSP header not set on `/` with
 * no parameter (Wapiti names its parameter `CSP`: another place, another issue).
 */
const zapReport = () =>
  zapOf([
    zapAlert('40012', 'Cross Site Scripting (Reflected)', '3', '79', [
      at('http://127.0.0.1:18080/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'q', '<script>alert(1)</script>'),
    ]),
    zapAlert('10010', 'Cookie No HttpOnly Flag', '1', '1004', [
      at('http://127.0.0.1:18080/', 'session', 'Set-Cookie: session'),
    ]),
    zapAlert('10038', 'Content Security Policy (CSP) Header Not Set', '2', '693', [at('http://127.0.0.1:18080/', '')]),
  ]);

interface Row {
  scanId: string;
  environmentId: string;
  findingPluginId: string;
  findingUrl: string;
  findingMethod: string;
  findingHash: string;
  issueId: string;
  detectedBy: string[];
  status: string;
}

const report = (tenant: { orgId: string; token: string }, query: Record<string, string | number> = {}) =>
  api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, {
    token: tenant.token,
    query: { pageSize: 1000, ...query },
  });

const isXss = (r: Row) => r.findingPluginId === '40012' || r.findingPluginId.startsWith('wapiti.cross-site-scripting');
const xssOnSearch = (r: Row) => isXss(r) && r.findingMethod === 'GET' && new URL(r.findingUrl).pathname === '/search';

describe('issues', () => {
  it('makes ZAP and Wapiti findings of one weakness one issue, detected by both, triaged once', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'node target' });
    const wapiti = await importReport(tenant.token, appId, 'staging', wapitiFixture(WAPITI));
    const zap = await importReport(tenant.token, appId, 'staging', zapReport(), 'application/json');
    expect([wapiti.status, zap.status], `${wapiti.text}\n${zap.text}`).toEqual([200, 200]);

    const first = await report(tenant);
    expect(first.status, first.text).toBe(200);
    const rows: Row[] = first.body.findings;
    const xss = rows.filter(xssOnSearch);
    expect(xss.map((r) => r.findingPluginId).sort()).toEqual(['40012', 'wapiti.cross-site-scripting'].sort());
    // Two findings (each tool's own hash), one issue, detected by both tools.
    expect(new Set(xss.map((r) => r.findingHash)).size).toBe(2);
    expect(new Set(xss.map((r) => r.issueId)).size).toBe(1);
    for (const r of xss) expect(r.detectedBy).toEqual(['wapiti', 'zap']);
    const cookie = rows.filter((r) => ['10010', 'wapiti.httponly-flag-cookie'].includes(r.findingPluginId));
    const sessionCookie = cookie.filter((r) => r.findingPluginId === '10010' || r.issueId === cookie[0].issueId);
    expect(new Set(sessionCookie.map((r) => r.issueId)).size).toBe(1);
    expect(sessionCookie.length).toBe(2);
    // ZAP's CSP finding (no parameter) is not Wapiti's (parameter CSP): an issue of its own, one tool.
    const csp = rows.find((r) => r.findingPluginId === '10038')!;
    expect(csp.detectedBy).toEqual(['zap']);
    expect(rows.filter((r) => r.issueId === csp.issueId)).toHaveLength(1);
    // The counts: every row's issue, counted once.
    expect(first.body.totalFindings).toBe(rows.length);
    expect(first.body.totalIssues).toBe(new Set(rows.map((r) => r.issueId)).size);
    // The report read its open issues' summary (two streams: each issue's tools); without it (data before it, a
    // stale one), it reads the environment's findings and answers the same.
    await db.send(new DeleteCommand({ TableName: config.tableName, Key: keys.openIssues(appId, zap.body.envId) }));
    expect((await report(tenant)).body).toEqual(first.body);
    expect(first.body.totalIssues).toBeLessThan(rows.length);

    // Triage once (ZAP's finding): both detections show it.
    const zapXss = xss.find((r) => r.findingPluginId === '40012')!;
    const envId = zapXss.environmentId;
    const triaged = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
      token: tenant.token,
      body: { actions: [{ findingHash: zapXss.findingHash, status: 'FALSE_POSITIVE', note: 'sanitized upstream' }] },
    });
    expect(triaged.status, triaged.text).toBe(200);
    expect(triaged.body.results).toHaveLength(1);
    const after: Row[] = (await report(tenant)).body.findings;
    expect(after.filter(xssOnSearch).map((r) => r.status)).toEqual(['FALSE_POSITIVE', 'FALSE_POSITIVE']);
    // The scan's own read (listScanAlerts' finding list) shows Wapiti's finding, with the issue's triage.
    const wapitiUris = await alertUrisOf(tenant.token, wapiti.body.scanId, 'wapiti.cross-site-scripting');
    const search = wapitiUris.find((u) => u.uri.includes('/search'))!;
    expect(search).toMatchObject({ findingHash: xss.find((r) => r.findingPluginId !== '40012')!.findingHash });
    expect(search.status).toBe('FALSE_POSITIVE');
    // The scan's own findings are unchanged: only Wapiti's alerts.
    const back = await readBack(tenant.token, wapiti.body.scanId);
    expect(Object.keys(back.hashes).every((id) => id.startsWith('wapiti.'))).toBe(true);

    // The diff's issueId is the issue's: the same for both tools' XSS.
    const [zapDiff, wapitiDiff] = await Promise.all(
      [zap, wapiti].map((s) => api('GET', `/api/v1/scan/${s.body.scanId}/diff`, { token: tenant.token })),
    );
    const zapEntry = zapDiff.body.new.find((e: { pluginId: string }) => e.pluginId === '40012');
    const wapitiEntry = wapitiDiff.body.new.find(
      (e: { pluginId: string; uri: string }) => e.pluginId.startsWith('wapiti.cross-site') && e.uri.includes('/search'),
    );
    expect(zapEntry.issueId).toBe(zapXss.issueId);
    expect(wapitiEntry.issueId).toBe(zapXss.issueId);
  });

  it("carries an issue's triage to another tool's later detection of it", async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'node target later' });
    const zap = await importReport(tenant.token, appId, 'prod', zapReport(), 'application/json');
    expect(zap.status, zap.text).toBe(200);
    const rows: Row[] = (await report(tenant)).body.findings;
    const zapXss = rows.find(xssOnSearch)!;
    expect(zapXss.detectedBy).toEqual(['zap']);
    const envId = zapXss.environmentId;
    const triaged = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
      token: tenant.token,
      body: { actions: [{ findingHash: zapXss.findingHash, status: 'FALSE_POSITIVE', note: 'sanitized' }] },
    });
    expect(triaged.status, triaged.text).toBe(200);

    const wapiti = await importReport(tenant.token, appId, 'prod', wapitiFixture(WAPITI));
    expect(wapiti.status, wapiti.text).toBe(200);
    const after: Row[] = (await report(tenant)).body.findings;
    const xss = after.filter(xssOnSearch);
    expect(xss).toHaveLength(2);
    expect(xss.map((r) => [r.issueId, r.status, r.detectedBy])).toEqual([
      [zapXss.issueId, 'FALSE_POSITIVE', ['wapiti', 'zap']],
      [zapXss.issueId, 'FALSE_POSITIVE', ['wapiti', 'zap']],
    ]);
    // Wapiti's scan counts its XSS finding on /search as triaged from the start (its other XSS findings are not).
    const alerts = (await readBack(tenant.token, wapiti.body.scanId)).result.applicationAlerts;
    const wapitiXss = alerts.find((a: { pluginId: string }) => a.pluginId === 'wapiti.cross-site-scripting');
    expect(wapitiXss).toBeDefined();
    const uris = await alertUrisOf(tenant.token, wapiti.body.scanId, 'wapiti.cross-site-scripting');
    expect(uris.filter((u) => u.status === 'FALSE_POSITIVE').map((u) => new URL(u.uri).pathname)).toEqual(['/search']);
  });

  it("applies a bulk triage to a detection another tool's later import added, read from the shared issues", async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'node target shared' });
    const zap = await importReport(tenant.token, appId, 'qa', zapReport(), 'application/json');
    expect(zap.status, zap.text).toBe(200);
    const envId = zap.body.envId;
    const shared = async () =>
      (await db.send(new GetCommand({ TableName: config.tableName, Key: keys.sharedIssues(appId, envId) }))).Item;
    // ZAP alone: each of its findings is an issue of its own, which a triage reads no detections of.
    expect(await shared()).toMatchObject({ count: 0 });
    const zapRows: Row[] = (await report(tenant)).body.findings;
    const zapXss = zapRows.find(xssOnSearch)!;
    const triage = async (status: string, note: string) => {
      const triaged = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
        token: tenant.token,
        body: { actions: zapRows.map((r) => ({ findingHash: r.findingHash, status, note })) },
      });
      expect(triaged.status, triaged.text).toBe(200);
      expect(triaged.body.results.map((r: { success: boolean }) => r.success)).toEqual(zapRows.map(() => true));
    };
    await triage('FALSE_POSITIVE', 'first look');

    // Wapiti then detects two of ZAP's issues (the XSS on /search, the session cookie): they are shared now.
    const wapiti = await importReport(tenant.token, appId, 'qa', wapitiFixture(WAPITI));
    expect(wapiti.status, wapiti.text).toBe(200);
    expect((await shared())?.count).toBeGreaterThanOrEqual(2);
    const statuses = async () =>
      new Map(((await report(tenant)).body.findings as Row[]).map((r) => [r.findingHash, [r.issueId, r.status]]));
    const carried = await statuses();
    const wapitiXss = [...carried].find(([hash, [issue]]) => issue === zapXss.issueId && hash !== zapXss.findingHash);
    expect(wapitiXss?.[1]).toEqual([zapXss.issueId, 'FALSE_POSITIVE']); // carried at its import

    // A bulk triage of ZAP's findings, recorded before Wapiti's: it changes Wapiti's detections of their issues too.
    await triage('RISK_ACCEPTED', 'accepted');
    const after = await statuses();
    const zapIssues = new Set(zapRows.map((r) => r.issueId));
    const ofZapIssues = [...after].filter(([, [issue]]) => zapIssues.has(issue!));
    expect(ofZapIssues.length).toBe(zapRows.length + 2);
    expect(ofZapIssues.map(([, [, status]]) => status)).toEqual(ofZapIssues.map(() => 'RISK_ACCEPTED'));
    // Wapiti's other findings are issues of their own: untouched.
    expect([...after].filter(([, [issue]]) => !zapIssues.has(issue!)).every(([, [, s]]) => s === 'NEW')).toBe(true);

    // Without the summary (data published before it), every issue's detections are read: the same answer.
    await db.send(new DeleteCommand({ TableName: config.tableName, Key: keys.sharedIssues(appId, envId) }));
    await triage('FALSE_POSITIVE', 'again');
    const again = await statuses();
    expect([...again].filter(([, [issue]]) => zapIssues.has(issue!)).map(([, [, s]]) => s)).toEqual(
      ofZapIssues.map(() => 'FALSE_POSITIVE'),
    );
  });

  it("templates an issue's path by the application's hosted description: /users/123 and /users/abc-name are one", async () => {
    const tenant = await createTenant();
    const described = await createApp(tenant, { name: 'described api' });
    const plain = await createApp(tenant, { name: 'undescribed api' });
    const description = [
      'openapi: 3.0.3',
      'info: {title: Users, version: "1"}',
      'servers: [{url: "http://127.0.0.1:18080/"}]',
      'paths:',
      '  /users/me: {get: {responses: {"200": {description: me}}}}',
      '  /users/{id}:',
      '    get:',
      '      parameters: [{name: id, in: path, required: true, schema: {type: string}}]',
      '      responses: {"200": {description: a user}}',
    ].join('\n');
    const uploaded = await api('POST', `/api/v1/oas/${described}/upload`, {
      token: tenant.token,
      rawBody: description,
      contentType: 'application/yaml',
    });
    expect(uploaded.status, uploaded.text).toBe(200);
    const users = zapOf([
      zapAlert('40012', 'Cross Site Scripting (Reflected)', '3', '79', [
        at('http://127.0.0.1:18080/users/123?q=%3Cb%3E', 'q', '<b>'),
        at('http://127.0.0.1:18080/users/abc-name?q=%3Cb%3E', 'q', '<b>'),
        at('http://127.0.0.1:18080/users/me?q=%3Cb%3E', 'q', '<b>'),
      ]),
    ]);
    const scans = await Promise.all(
      [described, plain].map((appId) => importReport(tenant.token, appId, 'staging', users, 'application/json')),
    );
    for (const scan of scans) expect(scan.status, scan.text).toBe(200);
    const rows: Row[] = (await report(tenant)).body.findings;
    const issuesOf = (scanId: string) =>
      Object.fromEntries(
        rows.filter((r) => r.scanId === scanId).map((r) => [new URL(r.findingUrl).pathname, r.issueId]),
      );
    // Three findings each (their hashes: /users/{id}, /users/abc-name, /users/me).
    const withDescription = issuesOf(scans[0].body.scanId);
    const without = issuesOf(scans[1].body.scanId);
    expect(Object.keys(withDescription).sort()).toEqual(['/users/123', '/users/abc-name', '/users/me']);
    expect(withDescription['/users/abc-name']).toBe(withDescription['/users/123']);
    expect(withDescription['/users/me']).not.toBe(withDescription['/users/123']); // a concrete path of its own
    expect(new Set(Object.values(without)).size).toBe(3);
    // The diff's entries name the same issues.
    const diff = await api('GET', `/api/v1/scan/${scans[0].body.scanId}/diff`, { token: tenant.token });
    expect(diff.status, diff.text).toBe(200);
    const diffIssues = new Set(diff.body.new.map((e: { issueId: string }) => e.issueId));
    expect(diffIssues).toEqual(new Set(Object.values(withDescription)));

    // A description stored before its routes were kept gets them at the upgrade.
    const key = keys.hostedDescriptionRoutes(described);
    await db.send(new DeleteCommand({ TableName: config.tableName, Key: key }));
    expect(await getDescriptionRoutes(described)).toBeUndefined();
    const record = (
      await db.send(new GetCommand({ TableName: config.tableName, Key: keys.hostedDescriptionOfApp(described) }))
    ).Item!;
    expect(await migrationSteps.hostedDescription(record)).toBe('updated');
    expect(await migrationSteps.hostedDescription(record)).toBe('current');
    expect(await getDescriptionRoutes(described)).toEqual({ paths: ['/users/me', '/users/{id}'], basePaths: [] });
  });

  it('the overview counts an issue detected by two tools once', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'node target overdue' });
    const wapiti = await importReport(tenant.token, appId, 'qa', wapitiFixture(WAPITI));
    const zap = await importReport(tenant.token, appId, 'qa', zapReport(), 'application/json');
    expect([wapiti.status, zap.status], `${wapiti.text}\n${zap.text}`).toEqual([200, 200]);
    // Every finding first seen 400 days ago: past any due date.
    const envId = zap.body.envId;
    for await (const f of findingsOfEnvironment({ applicationId: appId, environmentId: envId }))
      await db.send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: keys.finding(appId, envId, f.findingHash!),
          UpdateExpression: 'SET firstSeen = :t',
          ExpressionAttributeValues: { ':t': Date.now() - 400 * 86_400_000 },
        }),
      );
    const rows: (Row & { overdue: boolean; dueDate: string; findingRisk: string })[] = (await report(tenant)).body
      .findings;
    const late = rows.filter((r) => r.overdue);
    const lateIssues = new Map(late.map((r) => [r.issueId, r]));
    // Both tools' XSS on /search are overdue: two findings, one issue.
    const xss = late.filter(xssOnSearch);
    expect(new Set(xss.map((r) => r.findingHash)).size).toBe(2);
    expect(new Set(xss.map((r) => r.issueId)).size).toBe(1);

    const overview = await api('GET', `/api/v1/org/${tenant.orgId}/overview`, { token: tenant.token });
    expect(overview.status, overview.text).toBe(200);
    const { overdue } = overview.body;
    expect(overdue.overdueCount).toBe(lateIssues.size);
    expect(overdue.overdueCount).toBeLessThan(new Set(late.map((r) => r.findingHash)).size);
    expect(overdue.findingsWithDueDate).toBe(lateIssues.size);
    const listed: { findingHash: string; severity: string }[] = overdue.findings;
    expect(listed.filter((f) => xss.some((r) => r.findingHash === f.findingHash))).toHaveLength(1);
    // By severity: each issue's most overdue detection's (earliest due date, then hash).
    const first = new Map<string, (typeof late)[number]>();
    for (const r of late) {
      const held = first.get(r.issueId);
      if (!held || r.dueDate < held.dueDate || (r.dueDate === held.dueDate && r.findingHash < held.findingHash))
        first.set(r.issueId, r);
    }
    const bySeverity = { High: 0, Medium: 0, Low: 0 } as Record<string, number>;
    for (const r of first.values()) bySeverity[r.findingRisk]++;
    expect(overdue.overdueBySeverity).toEqual(bySeverity);
  });

  it('the upgrade of data written before issues assigns every finding its issue and carries triage', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'node target upgraded' });
    const wapiti = await importReport(tenant.token, appId, 'dev', wapitiFixture(WAPITI));
    const zap = await importReport(tenant.token, appId, 'dev', zapReport(), 'application/json');
    expect([wapiti.status, zap.status]).toEqual([200, 200]);
    const envId = zap.body.envId;
    const at = { applicationId: appId, environmentId: envId };
    const recordsOf = async () => (await collect(findingsOfEnvironment(at))) as FindingRecord[];
    const published = (await report(tenant)).body;
    expect(published.totalIssues).toBeGreaterThan(0);
    // As the version before issues left them: finding records without an issue, no detection items.
    const before = await recordsOf();
    for (const r of before) {
      await db.send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: keys.finding(appId, envId, r.findingHash),
          UpdateExpression: 'REMOVE issueId, cweId',
        }),
      );
      await db.send(
        new DeleteCommand({
          TableName: config.tableName,
          Key: keys.issueDetection(appId, envId, r.issueId!, r.findingHash),
        }),
      );
    }
    // ... and no open issues' summary (shared/results/issue-summary.ts).
    await db.send(new DeleteCommand({ TableName: config.tableName, Key: keys.openIssues(appId, envId) }));
    // A triage then applied to its finding alone: an acceptance for a week.
    const zapXss = before.find((r) => r.pluginId === '40012')!;
    const wapitiXss = before.find((r) => r.issueId === zapXss.issueId && r.pluginId !== '40012')!;
    const triaged = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
      token: tenant.token,
      body: {
        actions: [
          {
            findingHash: zapXss.findingHash,
            status: 'RISK_ACCEPTED',
            note: 'accepted for now',
            expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
          },
        ],
      },
    });
    expect(triaged.status, triaged.text).toBe(200);
    const statusOf = async (hash: string) =>
      ((await report(tenant)).body.findings as Row[]).find((r) => r.findingHash === hash)?.status;
    expect(await statusOf(wapitiXss.findingHash)).toBe('NEW');

    const item = { entity: 'environment', organizationId: tenant.orgId, applicationId: appId, environmentId: envId };
    expect(await migrationSteps.environment(item)).toBe('updated');
    expect(await migrationSteps.environment(item)).toBe('current');
    const after = await recordsOf();
    expect(after.map((r) => [r.findingHash, r.issueId]).sort()).toEqual(
      before.map((r) => [r.findingHash, r.issueId]).sort(),
    );
    expect(await statusOf(wapitiXss.findingHash)).toBe('RISK_ACCEPTED');
    // The carried acceptance is written as a rule is (shared/findings/rule-write.ts): with its own expiry entry.
    const carried = await getTriageRule(at, wapitiXss.findingHash);
    expect(carried?.expiresAt).toBeDefined();
    expect(carried!.expiresAt).toBe((await getTriageRule(at, zapXss.findingHash))?.expiresAt);
    const entry = keys.riskExpiry(carried!.expiresAt!, appId, envId, wapitiXss.findingHash);
    expect((await db.send(new GetCommand({ TableName: config.tableName, Key: entry }))).Item).toBeDefined();
    // The upgrade wrote the summary: the report counts the issues and names their tools as at the publication.
    const summary = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.openIssues(appId, envId) }));
    expect(summary.Item?.count).toBe(published.totalIssues);
    const upgraded = (await report(tenant)).body;
    expect([upgraded.totalIssues, upgraded.totalFindings]).toEqual([published.totalIssues, published.totalFindings]);
    const toolsOf = (body: { findings: Row[] }) => body.findings.map((r) => [r.findingHash, r.detectedBy]).sort();
    expect(toolsOf(upgraded)).toEqual(toolsOf(published));
    // The issue's detections are back: a triage now applies to both.
    const reopened = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
      token: tenant.token,
      body: { actions: [{ findingHash: zapXss.findingHash, status: 'FALSE_POSITIVE', note: 'not reachable' }] },
    });
    expect(reopened.status, reopened.text).toBe(200);
    expect(await statusOf(wapitiXss.findingHash)).toBe('FALSE_POSITIVE');
    // Its acceptance ended with the issue's: its entry went with it.
    expect((await db.send(new GetCommand({ TableName: config.tableName, Key: entry }))).Item).toBeUndefined();
  }, 120_000);
});
