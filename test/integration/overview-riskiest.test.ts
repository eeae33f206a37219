import { describe, expect, it } from 'vitest';
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';
import { importReport } from './import-helpers.ts';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { collect } from '../../shared/db/query.ts';
import { environmentsOfApp } from '../../shared/applications/environment-repository.ts';
import { APPLICATION_TYPES, OPEN_ISSUE_FIELDS, type ListEntry } from '../../shared/applications/model.ts';
import { findingsOfEnvironment } from '../../shared/results/finding-repository.ts';
import { FULL_WALKS, overviewOf, riskiestOfEntries, riskiestRecomputed } from '../../shared/overview/overview.ts';
import { migrationSteps } from '../../shared/table-migration.ts';
import { listScope } from '../../shared/applications/list-entries.ts';
import type { Membership } from '../../shared/context/caller.ts';
import { markOrganizationRiskiestComplete } from '../../shared/results/riskiest.ts';

// The overview's riskiest applications as a ranked projection (applications/projections/riskiest-applications.ts;
// docs/GOVERNANCE.md, The overview) against their full recomputation from the environments' finding records
// (riskiestRecomputed) on random data: HawkScan scans (completed and errored) and ZAP imports of overlapping
// weaknesses into several environments, triage, smaller scans that fix, renames and deletes of environments and
// applications; the open figures count issues (one per weakness, whatever its tools and URIs); then the same after an
// upgrade's migration gives data written before the entries theirs.

/** A deterministic pseudo-random sequence (the failing seed is in the test's name). */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

const SEVERITIES = ['High', 'Medium', 'Low'] as const;
/** A weakness at a place: its CWE (one of three), its path (one of four) and its severity as a tool reports it. */
type Weakness = { cwe: string; path: string; severity: (typeof SEVERITIES)[number] };

/** HawkScan's alerts of `weaknesses`: one plugin per CWE and severity, one URI per path (two URIs of one finding). */
const hawkAlerts = (weaknesses: Weakness[]) => {
  const byPlugin = new Map<string, { severity: string; cwe: string; paths: string[] }>();
  for (const w of weaknesses) {
    const plugin = `${w.cwe}${SEVERITIES.indexOf(w.severity)}`;
    const entry = byPlugin.get(plugin) ?? { severity: w.severity, cwe: w.cwe, paths: [] };
    entry.paths.push(`${w.path}/1`, `${w.path}/2`);
    byPlugin.set(plugin, entry);
  }
  return [...byPlugin].map(([pluginId, { severity, cwe, paths }]) => ({
    pluginId,
    name: `Plugin ${pluginId}`,
    severity,
    description: 'About it',
    cweId: cwe,
    uris: paths.map((uri) => ({ uri, requestMethod: 'GET', param: 'q', evidence: '', otherInfo: '' })),
  }));
};

/** ZAP's report (traditional JSON) of `weaknesses`: the same places as HawkScan's, so the same issues. */
const zapReport = (weaknesses: Weakness[]) =>
  JSON.stringify({
    '@version': '2.14.0',
    '@generated': 'Wed, 2 Dec 2026 12:00:00',
    site: [
      {
        '@name': 'http://127.0.0.1:18080',
        '@host': '127.0.0.1',
        '@port': '18080',
        '@ssl': 'false',
        alerts: weaknesses.map((w, i) => ({
          pluginid: `9${i}${w.cwe}`,
          alertRef: `9${i}${w.cwe}`,
          alert: `Zap ${w.cwe}`,
          name: `Zap ${w.cwe}`,
          riskcode: String(3 - SEVERITIES.indexOf(w.severity)),
          confidence: '2',
          riskdesc: '',
          desc: '<p>x</p>',
          instances: [
            { uri: `http://127.0.0.1:18080${w.path}/7`, method: 'GET', param: 'q', attack: '', evidence: '' },
          ],
          count: '1',
          solution: '',
          otherinfo: '',
          reference: '',
          cweid: w.cwe,
          wascid: '0',
          sourceid: '1',
        })),
      },
    ],
  });

const everything = () => true;

/** The ranked entries' answer, the recomputation's and the request's agree. */
async function compare(tenant: Tenant) {
  const owner = { organizationId: tenant.orgId, userId: 'owner', teamIds: [] } as unknown as Membership;
  const scope = await listScope(tenant.orgId, owner, [...APPLICATION_TYPES], []);
  const keep = (e: ListEntry) => scope.keep(e);
  const projected = await riskiestOfEntries(tenant.orgId, keep);
  const recomputed = await riskiestRecomputed(tenant.orgId, keep);
  expect(projected, 'the entries are ready').toBeDefined();
  expect(projected).toEqual(recomputed);
  const out = await api('GET', `/api/v1/org/${tenant.orgId}/overview`, { token: tenant.token });
  expect(out.status, out.text).toBe(200);
  expect(out.body.riskiestApplications).toEqual(recomputed);
  const full = await overviewOf(tenant.orgId, keep, Date.parse(out.body.generatedAt), FULL_WALKS);
  expect(JSON.parse(JSON.stringify(full))).toEqual(out.body);
  return recomputed;
}

async function randomSteps(tenant: Tenant, seed: number, steps: number) {
  const next = random(seed);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
  const weaknesses = () =>
    Array.from({ length: 1 + Math.floor(next() * 5) }, () => ({
      cwe: pick(['79', '89', '352']),
      path: pick(['/a', '/b', '/c', '/d']),
      severity: pick([...SEVERITIES]),
    }));
  const apps: { appId: string; envs: string[] }[] = [];
  for (let step = 0; step < steps; step++) {
    const roll = next();
    if (apps.length < 3 || roll < 0.12) {
      apps.push({ appId: await createApp(tenant, { name: `app-${seed}-${step}`, env: 'e0' }), envs: ['e0'] });
    } else if (roll < 0.2) {
      const app = pick(apps);
      const env = `e${step}`;
      const out = await api('POST', `/api/v1/app/${app.appId}/env`, { token: tenant.token, body: { env } });
      expect(out.status, out.text).toBe(200);
      app.envs.push(env);
    } else if (roll < 0.55) {
      const app = pick(apps);
      const started = await startScan(tenant.token, app.appId, { env: pick(app.envs) });
      await reportAlerts(tenant.token, started.scanId, hawkAlerts(weaknesses()));
      await completeScan(tenant.token, started.scanId, next() < 0.2 ? 'ERROR' : 'COMPLETED');
    } else if (roll < 0.75) {
      const app = pick(apps);
      const out = await importReport(
        tenant.token,
        app.appId,
        pick(app.envs),
        zapReport(weaknesses()),
        'application/json',
      );
      expect(out.status, out.text).toBe(200);
    } else if (roll < 0.85) {
      // A triage of one finding: its issue leaves the untriaged figures (the open figures count it still).
      const app = pick(apps);
      const env = (await environmentsOfApp(app.appId))[0]!;
      const findings = await collect(findingsOfEnvironment(env));
      if (!findings.length) continue;
      const out = await api(
        'POST',
        `/api/v1/org/${tenant.orgId}/app/${app.appId}/env/${env.environmentId}/findings/triage`,
        {
          token: tenant.token,
          body: {
            actions: [
              {
                findingHash: pick(findings).findingHash,
                status: pick(['FALSE_POSITIVE', 'ADD_COMMENT']),
                note: 'seen',
              },
            ],
          },
        },
      );
      expect(out.status, out.text).toBe(200);
    } else if (roll < 0.9) {
      const app = pick(apps);
      const out = await api('POST', `/api/v1/app/${app.appId}`, {
        token: tenant.token,
        body: { name: `renamed-${seed}-${step}` },
      });
      expect([200, 404], out.text).toContain(out.status);
    } else if (roll < 0.95 && apps.length > 3) {
      const app = apps.splice(Math.floor(next() * apps.length), 1)[0]!;
      expect((await api('DELETE', `/api/v1/app/${app.appId}`, { token: tenant.token })).status).toBe(200);
    } else {
      const several = apps.filter((a) => a.envs.length > 1);
      if (!several.length) continue;
      const app = pick(several);
      const [name] = app.envs.splice(Math.floor(next() * app.envs.length), 1);
      const env = (await environmentsOfApp(app.appId)).find((e) => e.name === name)!;
      const out = await api('DELETE', `/api/v1/app/${app.appId}/env/${env.environmentId}`, { token: tenant.token });
      expect(out.status, out.text).toBe(200);
    }
    if (step % 8 === 7) await compare(tenant);
  }
  return compare(tenant);
}

describe('the riskiest applications', () => {
  for (const seed of [11, 2026]) {
    it(`answer what a full recomputation answers on random data (seed ${seed})`, async () => {
      const tenant = await createTenant();
      const riskiest = await randomSteps(tenant, seed, 36);
      expect(riskiest.length).toBeGreaterThan(1);
    });
  }

  it('count issues: one per weakness whatever its tools and URIs, in its highest severity', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'tools', env: 'dev' });
    // HawkScan: XSS on /a (High, two URIs of one finding) and on /a again as Low (another plugin: the same issue),
    // SQL injection on /b (Medium).
    const started = await startScan(tenant.token, appId, { env: 'dev' });
    await reportAlerts(
      tenant.token,
      started.scanId,
      hawkAlerts([
        { cwe: '79', path: '/a', severity: 'High' },
        { cwe: '79', path: '/a', severity: 'Low' },
        { cwe: '89', path: '/b', severity: 'Medium' },
      ]),
    );
    await completeScan(tenant.token, started.scanId);
    // ZAP: the same XSS (Low) and a CSRF on /c (Low): one new issue.
    const imported = await importReport(
      tenant.token,
      appId,
      'dev',
      zapReport([
        { cwe: '79', path: '/a', severity: 'Low' },
        { cwe: '352', path: '/c', severity: 'Low' },
      ]),
      'application/json',
    );
    expect(imported.status, imported.text).toBe(200);
    const [row] = await compare(tenant);
    expect(row).toMatchObject({ applicationId: appId, openHigh: 1, openMedium: 1, openLow: 1, openTotal: 3 });
    // The findings report counts the same issues.
    const report = await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, { token: tenant.token });
    expect(report.body.totalIssues).toBe(3);

    // A later HawkScan scan without the High: the XSS stays open by ZAP's Low; the SQL injection is fixed.
    const again = await startScan(tenant.token, appId, { env: 'dev' });
    await reportAlerts(tenant.token, again.scanId, hawkAlerts([{ cwe: '79', path: '/a', severity: 'Low' }]));
    await completeScan(tenant.token, again.scanId);
    const [after] = await compare(tenant);
    expect(after).toMatchObject({ openHigh: 0, openMedium: 0, openLow: 2, openTotal: 2 });
  });

  it('come from npm run migrate for data written before their entries', async () => {
    const tenant = await createTenant();
    await randomSteps(tenant, 77, 16);
    const expected = await riskiestRecomputed(tenant.orgId, everything);
    // As an earlier version left it: no entries, no marker, environments without their open issues, applications
    // without their open figures.
    const entries = await db.send(
      new QueryCommand({
        TableName: process.env.TABLE_NAME,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.riskiestApplications(tenant.orgId).pk },
      }),
    );
    for (const item of entries.Items ?? [])
      await db.send(new DeleteCommand({ TableName: process.env.TABLE_NAME, Key: { pk: item.pk, sk: item.sk } }));
    const appIds = new Set((expected as { applicationId: string }[]).map((r) => r.applicationId));
    for (const appId of appIds) {
      for (const env of await environmentsOfApp(appId))
        await db.send(
          new UpdateCommand({
            TableName: process.env.TABLE_NAME,
            Key: keys.environment(appId, env.environmentId),
            UpdateExpression: `REMOVE ${OPEN_ISSUE_FIELDS.join(', ')}`,
          }),
        );
      await db.send(
        new UpdateCommand({
          TableName: process.env.TABLE_NAME,
          Key: keys.application(appId),
          UpdateExpression: 'REMOVE health.openHigh, health.openMedium, health.openLow',
        }),
      );
    }
    expect(await riskiestOfEntries(tenant.orgId, everything)).toBeUndefined();
    // The request still answers (from the environments with the most untriaged findings, their figures as stored).
    const before = await api('GET', `/api/v1/org/${tenant.orgId}/overview`, { token: tenant.token });
    expect(before.status, before.text).toBe(200);
    expect(before.body.riskiestApplications.map((r: { applicationId: string }) => r.applicationId).sort()).toEqual(
      [...appIds].sort(),
    );

    for (const appId of appIds) {
      for (const env of await environmentsOfApp(appId)) {
        const item = { ...env, entity: 'environment' } as unknown as Record<string, unknown>;
        expect(await migrationSteps.environment!(item)).toBe('updated');
        expect(await migrationSteps.environment!(item)).toBe('current');
      }
      // Its entry: written by its environments' counts already, or now (when they moved none of its figures).
      expect(['current', 'updated']).toContain(
        await migrationSteps.application!({ applicationId: appId, entity: 'application' }),
      );
    }
    // The migration's last step, for this organization (markRiskiestComplete walks every organization of the table).
    await markOrganizationRiskiestComplete(tenant.orgId);
    expect(await compare(tenant)).toEqual(expected);
  }, 240_000);
});
