import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { api } from './client.ts';
import { addUserTo, createTenant, type Tenant } from './fixtures.ts';
import { joinTeams } from './app-helpers.ts';
import { createApp, scanOnce, startScan } from './scan-helpers.ts';
import { importReport } from './import-helpers.ts';
import { fixture } from '../../scanner/test/zap-expected.ts';

// GET /api/v1/reports/org/{orgId}/findings: current findings, as of a moment, JSON and CSV, paging, filters, rules.

const uri = (path: string, evidence = `at ${path}`) => ({
  uri: path,
  requestMethod: 'GET',
  param: 'id',
  evidence,
  otherInfo: 'info',
  requestHeader: '',
  requestBody: '',
  responseHeader: '',
  responseBody: '',
});
const plugin = (pluginId: string, severity: string, uris: ReturnType<typeof uri>[]) => ({
  pluginId,
  name: `Plugin ${pluginId}`,
  severity,
  description: `About ${pluginId}`,
  cweId: '89',
  uris,
});

const report = (
  tenant: Pick<Tenant, 'orgId' | 'token'>,
  query: Record<string, string | number | undefined> = {},
  headers: Record<string, string> = {},
) => api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, { token: tenant.token, query, headers });

type Row = Record<string, string>;
const urlsOf = (rows: Row[]) => rows.map((r) => r.findingUrl);
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('organization findings report', () => {
  it('reports the latest completed scan of each environment, with triage, first/last seen, as of a moment, as JSON and CSV', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'alpha', env: 'dev' });
    const tricky = 'a,"quoted"\r\nline';
    const scannedFrom = Date.now();
    const first = await scanOnce(tenant.token, appId, [
      plugin('40018', 'High', [uri('/users/1', tricky), uri('/about')]),
      plugin('10038', 'Medium', [uri('/x')]),
    ]);
    const beforeTriage = new Date().toISOString();
    await pause();
    const initial = await report(tenant);
    expect(initial.status).toBe(200);
    expect(initial.body.totalFindings).toBe(3);
    const userRow = initial.body.findings.find((r: Row) => r.findingUrl === 'https://target.test/users/1');
    expect(userRow).toMatchObject({
      scanId: first.scanId,
      applicationId: appId,
      applicationName: 'alpha',
      environmentId: first.envId,
      environmentName: 'dev',
      status: 'NEW',
      findingPluginId: '40018',
      findingPluginName: 'Plugin 40018',
      findingRisk: 'High',
      findingMethod: 'GET',
      findingEvidence: tricky,
      findingOtherInfo: 'info',
      findingDescription: 'About 40018',
      cweId: '89',
      team: '',
    });
    expect(userRow.findingHash).toMatch(/^[0-9a-f]{64}$/);
    const triaged = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${first.envId}/findings/triage`, {
      token: tenant.token,
      body: { actions: [{ findingHash: userRow.findingHash, status: 'FALSE_POSITIVE' }] },
    });
    expect(triaged.body.results[0].success).toBe(true);
    await pause();
    const afterTriage = new Date().toISOString();
    await pause();
    await startScan(tenant.token, appId); // a running scan does not replace the current findings
    expect((await report(tenant)).body.totalFindings).toBe(3);

    const second = await scanOnce(tenant.token, appId, [plugin('40018', 'High', [uri('/users/2'), uri('/new')])]);
    const current = await report(tenant);
    expect(current.body.totalFindings).toBe(2);
    const rows: Row[] = current.body.findings;
    expect(urlsOf(rows)).toEqual(['https://target.test/users/2', 'https://target.test/new']);
    expect(rows.map((r) => [r.status, r.scanId])).toEqual([
      ['FALSE_POSITIVE', second.scanId],
      ['NEW', second.scanId],
    ]);
    // The same finding as /users/1: first seen in the first scan, last seen in the second.
    expect(rows[0].findingHash).toBe(userRow.findingHash);
    expect(rows[0].findingFirstSeen).toBe(userRow.findingFirstSeen);
    expect(Number(rows[0].findingLastSeen)).toBeGreaterThan(Number(userRow.findingLastSeen));
    expect(rows[1].findingFirstSeen).toBe(rows[1].findingLastSeen);
    expect(rows[0].findingFirstSeenISO8601).toBe(new Date(Number(userRow.findingFirstSeen)).toISOString());
    expect(rows[0].findingFirstSeenExcelFormat).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(rows[0].scanDurationISO8601).toMatch(/^PT/);

    // As of a moment: the scan completed by then, and each finding's triage then.
    const asBefore = await report(tenant, { datetime: beforeTriage });
    expect(asBefore.body.findings.map((r: Row) => [r.findingUrl, r.status])).toEqual([
      ['https://target.test/x', 'NEW'],
      ['https://target.test/users/1', 'NEW'],
      ['https://target.test/about', 'NEW'],
    ]);
    const asAfter = await report(tenant, { datetime: afterTriage });
    expect(asAfter.body.findings.find((r: Row) => r.findingUrl === 'https://target.test/users/1').status).toBe(
      'FALSE_POSITIVE',
    );
    // The day before the one the first scan started on: "yesterday" of the wall clock now would be that very day
    // when midnight (UTC) fell since.
    const dayBefore = new Date(scannedFrom - 86_400_000).toISOString().slice(0, 10);
    expect((await report(tenant, { date: dayBefore })).body).toMatchObject({ totalFindings: 0, findings: [] });
    expect(
      (await report(tenant, { date: new Date().toISOString().slice(0, 10), datetime: beforeTriage })).body
        .totalFindings,
    ).toBe(3); // datetime wins

    // CSV: the same rows, RFC 4180 quoting, parsed back.
    const csv = await report(tenant, { datetime: beforeTriage }, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('x-total-count')).toBe('3');
    expect(csv.text.split('\r\n')[0]).toBe(
      'scanId,applicationId,applicationName,environmentId,environmentName,status,findingPluginId,findingPluginName,findingRisk,findingUrl,findingMethod,findingEvidence,findingOtherInfo,findingDescription,findingFirstSeen,findingLastSeen,findingHash,cweId,team,dueDate,daysLeft,overdue,triagedBy,triagedAt,triageNote,riskAcceptedUntil,issueId,detectedBy',
    );
    const parsed: Row[] = parse(csv.text, { columns: true });
    expect(parsed.map((r) => [r.findingUrl, r.status, r.findingHash, r.findingEvidence])).toEqual(
      asBefore.body.findings.map((r: Row) => [r.findingUrl, r.status, r.findingHash, r.findingEvidence]),
    );
    expect(parsed[1].findingEvidence).toBe(tricky);
    expect(parsed[1].findingFirstSeen).toBe(asBefore.body.findings[1].findingFirstSeenISO8601);
    expect((await report(tenant, {}, { accept: 'application/x-protobuf' })).status).toBe(406);
  });

  it('reports URIs of one finding (paths that normalize alike) on one page, each as a row', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'ids', env: 'dev' });
    await scanOnce(tenant.token, appId, [plugin('40018', 'High', [uri('/users/1'), uri('/users/2'), uri('/users/3')])]);
    const out = await report(tenant);
    expect(out.status, out.text).toBe(200);
    const rows: Row[] = out.body.findings;
    expect(urlsOf(rows)).toEqual([
      'https://target.test/users/1',
      'https://target.test/users/2',
      'https://target.test/users/3',
    ]);
    expect(new Set(rows.map((r) => r.findingHash)).size).toBe(1);
    const csv = await report(tenant, {}, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(parse(csv.text, { columns: true })).toHaveLength(3);
  });

  it('reads a scan shown whole in one Query of its URIs, in the same order as alert by alert', async () => {
    const tenant = await createTenant();
    const app = await createApp(tenant, { name: 'whole', env: 'dev' });
    // Plugin ids that prefix each other ('1' and '10', 'a' and 'a-'): each alert keeps its own URIs, in its order.
    await scanOnce(tenant.token, app, [
      plugin('a-', 'Low', [uri('/x1'), uri('/x2')]),
      plugin('10', 'High', [uri('/t1')]),
      plugin('a', 'Medium', [uri('/y1'), uri('/y2')]),
      plugin('1', 'Low', [uri('/o1'), uri('/o2')]),
    ]);
    await scanOnce(tenant.token, app, [plugin('1', 'Low', [uri('/s1')])], 'stage');
    const expected = ['/o1', '/o2', '/t1', '/y1', '/y2', '/x1', '/x2', '/s1'];
    const all: Row[] = (await report(tenant)).body.findings;
    expect(urlsOf(all).map((u) => u.replace('https://target.test', ''))).toEqual(expected);
    expect(all.map((r) => r.findingPluginId)).toEqual(['1', '1', '10', 'a', 'a', 'a-', 'a-', '1']);
    for (const pageSize of [1, 3, 7]) {
      const pages: Row[] = [];
      for (let pageToken = 0; pages.length < expected.length; pageToken++)
        pages.push(...(await report(tenant, { pageSize, pageToken })).body.findings);
      expect(pages, `pageSize ${pageSize}`).toEqual(all);
    }
  });

  it('gives the same rows whether a page reads its messages, findings and rules as ranges or by key', async () => {
    // Pages covering a whole environment or most of a scan read its rows' messages, finding records and rules as
    // sort-key ranges (bounded), a sliver of one by key, rules mostly absent as a range too: the rows are the same.
    const tenant = await createTenant();
    const app = await createApp(tenant, { name: 'ranges', env: 'dev' });
    const paths = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => uri(`/${prefix}/${i}x`));
    // /users/1../users/6: one finding of several URIs (duplicate hashes on a page).
    const users = Array.from({ length: 6 }, (_, i) => uri(`/users/${i + 1}`));
    await scanOnce(tenant.token, app, [
      plugin('1', 'High', [...users, ...paths('old', 20)]),
      plugin('2', 'Low', paths('b', 14)),
    ]);
    const triage = async (envId: string, hashes: string[], status: string) => {
      const out = await api('POST', `/api/v1/org/${tenant.orgId}/app/${app}/env/${envId}/findings/triage`, {
        token: tenant.token,
        body: { actions: hashes.map((findingHash) => ({ findingHash, status, note: `${status} note` })) },
      });
      expect(out.status, out.text).toBe(200);
    };
    const before: Row[] = (await report(tenant, { pageSize: 1000 })).body.findings;
    await triage(before[0]!.environmentId, [before[0]!.findingHash, before[10]!.findingHash], 'FALSE_POSITIVE');
    // The rescan fixes the old paths (their records stay, among the current ones) and reports new ones.
    await scanOnce(tenant.token, app, [
      plugin('1', 'High', [...users, ...paths('new', 12)]),
      plugin('2', 'Low', [...paths('b', 14), ...paths('c', 8)]),
    ]);
    await scanOnce(tenant.token, app, [plugin('3', 'Medium', paths('s', 20))], 'stage');
    const whole: Row[] = (await report(tenant, { pageSize: 1000 })).body.findings;
    expect(whole).toHaveLength(60);
    await triage(whole[20]!.environmentId, [whole[20]!.findingHash, whole[25]!.findingHash], 'RISK_ACCEPTED');
    await triage(whole[45]!.environmentId, [whole[45]!.findingHash], 'FALSE_POSITIVE');
    const all: Row[] = (await report(tenant, { pageSize: 1000 })).body.findings;
    expect(all.filter((r) => r.status !== 'NEW').length).toBeGreaterThanOrEqual(9); // /users/* and the others
    expect(new Set(all.map((r) => r.findingEvidence)).size).toBe(all.length);
    // 25: most of a scan (ranges) then a sliver; 17: less than half (rules as a range, the rest by key); 5: by key.
    for (const pageSize of [25, 17, 5]) {
      const pages: Row[] = [];
      for (let pageToken = 0; pages.length < all.length; pageToken++)
        pages.push(...(await report(tenant, { pageSize, pageToken })).body.findings);
      expect(pages, `pageSize ${pageSize}`).toEqual(all);
    }
  });

  it('pages, filters by appIds and envs, applies team rules and read:report, and isolates organizations', async () => {
    const tenant = await createTenant();
    const alpha = await createApp(tenant, { name: 'alpha', env: 'dev' });
    const beta = await createApp(tenant, { name: 'beta', env: 'dev' });
    await scanOnce(tenant.token, alpha, [
      plugin('1', 'Low', [uri('/a1'), uri('/a2'), uri('/a3')]),
      plugin('2', 'High', [uri('/a4')]),
    ]);
    await scanOnce(tenant.token, alpha, [plugin('1', 'Low', [uri('/p1')])], 'prod');
    await scanOnce(tenant.token, beta, [plugin('3', 'Medium', [uri('/b1'), uri('/b2')])]);

    const all: Row[] = (await report(tenant)).body.findings;
    expect(urlsOf(all).map((u) => u.replace('https://target.test', ''))).toEqual([
      '/a1',
      '/a2',
      '/a3',
      '/a4',
      '/p1',
      '/b1',
      '/b2',
    ]);
    const pages: Row[] = [];
    for (let pageToken = 0; ; pageToken++) {
      const page = await report(tenant, { pageSize: 2, pageToken });
      expect(page.body.totalFindings).toBe(7);
      pages.push(...page.body.findings);
      if (page.body.findings.length < 2) break;
    }
    expect(pages).toEqual(all);
    expect((await report(tenant, { pageSize: 3, pageToken: 5 })).body).toMatchObject({
      findings: [],
      totalFindings: 7,
    });
    for (const pageSize of [0, 1001, 'x']) expect((await report(tenant, { pageSize })).status).toBe(400);
    for (const bad of [
      { date: '2024-13-40' },
      { date: 'yesterday' },
      { datetime: '2024-06-14T25:99:00Z' },
      { appIds: 'nope' },
    ]) {
      const out = await report(tenant, bad);
      expect(out.status, JSON.stringify(bad)).toBe(400);
    }

    expect(urlsOf((await report(tenant, { appIds: beta })).body.findings)).toHaveLength(2);
    expect(urlsOf((await report(tenant, { envs: 'PROD' })).body.findings)).toEqual(['https://target.test/p1']);
    expect((await report(tenant, { appIds: alpha, envs: 'dev' })).body.totalFindings).toBe(4);

    const noReport = await addUserTo(tenant.orgId, ['read:scan', 'read:application']);
    expect((await report({ orgId: tenant.orgId, token: noReport.token })).status).toBe(401);
    const stranger = await createTenant();
    expect((await report({ orgId: tenant.orgId, token: stranger.token })).status).toBe(401);
    expect((await report(stranger, { appIds: alpha })).body).toMatchObject({ totalFindings: 0, findings: [] });

    // A team-owned application's findings: its team's members only.
    const member = await addUserTo(tenant.orgId);
    await joinTeams(tenant.orgId, member.userId, [randomUUID()]);
    const teamApp = await createApp({ orgId: tenant.orgId, token: member.token }, { name: 'gamma', env: 'dev' });
    await scanOnce(member.token, teamApp, [plugin('4', 'High', [uri('/t')])]);
    const outsider = await addUserTo(tenant.orgId);
    await joinTeams(tenant.orgId, outsider.userId, [randomUUID()]);
    expect((await report({ orgId: tenant.orgId, token: outsider.token })).body.totalFindings).toBe(7);
    const byMember: Row[] = (await report({ orgId: tenant.orgId, token: member.token })).body.findings;
    expect(byMember).toHaveLength(8);
    expect(byMember[7]).toMatchObject({ applicationName: 'gamma', team: expect.stringContaining('team') });
  });
});

/**
 * RFC 4180 read strictly: a record ends at any line break outside quotes (as Excel and Python's csv read it), every
 * record has the header's columns, and a quote inside an unquoted field is an error.
 */
const strictCsv = (text: string): Row[] =>
  parse(text, {
    columns: true,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_quotes: false,
    relax_column_count: false,
  });

describe('findings report as CSV, for spreadsheets', () => {
  it('neutralizes cells that would start a formula (CWE-1236) and keeps JSON as reported', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: '=cmd', env: 'dev' });
    const planted = ['=HYPERLINK("http://evil.test","x")', '+1+1', '-2+3', '@SUM(A1)', '\t=1+1', '\r=1+1'];
    await scanOnce(tenant.token, appId, [
      {
        ...plugin(
          '1',
          'High',
          planted.map((evidence, i) => uri(`/p${i}`, evidence)),
        ),
        name: '=1+2',
      },
    ]);
    const json: Row[] = (await report(tenant)).body.findings;
    expect(json.map((r) => r.findingEvidence)).toEqual(planted);
    const csv = await report(tenant, {}, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    const rows = strictCsv(csv.text);
    expect(rows.map((r) => r.findingEvidence)).toEqual(planted.map((value) => `'${value}`));
    expect(rows.every((r) => r.findingPluginName === "'=1+2" && r.applicationName === "'=cmd")).toBe(true);
    expect(rows.every((r) => r.findingOtherInfo === 'info')).toBe(true); // other cells as they are
  });

  it('quotes every field holding CR or LF: real imported descriptions read back whole, one row per finding', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'imported', env: 'dev' });
    const imported = await importReport(
      tenant.token,
      appId,
      'dev',
      fixture('zap-xml_2.10.0_juice-shop_defectdojo-juicy2.xml'),
    );
    expect(imported.status, imported.text).toBe(200);
    const json: Row[] = (await report(tenant, { pageSize: 1000 })).body.findings;
    expect(json.some((r) => /(^|[^\r])\n/.test(r.findingDescription))).toBe(true); // bare LFs, as ZAP writes them
    const csv = await report(tenant, { pageSize: 1000 }, { accept: 'text/csv' });
    const rows = strictCsv(csv.text);
    expect(rows).toHaveLength(json.length);
    expect(rows.map((r) => [r.findingUrl, r.findingDescription, r.findingEvidence])).toEqual(
      json.map((r) =>
        [r.findingUrl, r.findingDescription, r.findingEvidence].map((v) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v)),
      ),
    );
  });
});
