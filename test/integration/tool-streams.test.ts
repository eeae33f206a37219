import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { createApp } from './scan-helpers.ts';
import { importReport, readBack, untriagedOf } from './import-helpers.ts';
import { expectedAlerts, fixture } from '../../scanner/test/zap-expected.ts';
import { formatsFixture } from '../../scanner/test/formats-expected.ts';
import { collect } from '../../shared/db/query.ts';
import { findingsOfEnvironment } from '../../shared/results/finding-repository.ts';
import type { FindingRecord, ScanRecord } from '../../shared/results/model.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/client.ts';
import { config } from '../../shared/config.ts';
import { keys } from '../../shared/db/keys.ts';
import { transactWrite } from '../../shared/db/transactions.ts';
import { environmentScanWrites, getEnvironment } from '../../shared/applications/environment-repository.ts';
import { getScan } from '../../shared/results/scan-repository.ts';
import { migrationSteps } from '../../shared/table-migration.ts';

// Tool streams (docs/DATA-MODEL.md, Tool streams): each scan belongs to the stream of the tool that produced it, a
// finding is fixed only by a later scan of its own stream, and the environment's current findings (untriaged
// figures, the findings report, the deprecated environment list) are the union of its streams' latest scans.

const ZAP = 'zap-xml_2.10.0_juice-shop_defectdojo-juicy2.xml';
const NUCLEI = 'nuclei-jsonl_v2-2022_classification_defectdojo-many_findings_new.jsonl';

async function environmentOf(tenant: Tenant, appId: string) {
  const out = await api('GET', `/api/v2/org/${tenant.orgId}/envs`, {
    token: tenant.token,
    query: { pageSize: 100, appIds: appId },
  });
  expect(out.status, out.text).toBe(200);
  expect(out.body.environments).toHaveLength(1);
  return out.body.environments[0] as Record<string, any>;
}

const recordsOf = async (appId: string, environmentId: string) =>
  (await collect(findingsOfEnvironment({ applicationId: appId, environmentId }))) as FindingRecord[];

const allHashes = (hashes: Record<string, string[]>) => new Set(Object.values(hashes).flat());

/** The untriaged figures of an imported scan, from its answer's alert statistics (Info never counts). */
function untriagedOfImport(out: { body: any }) {
  const stats = (out.body.scanResult.alertStats.alertStatusStats as { alertStatus: string; severityStats: any }[])
    .filter((s) => s.alertStatus === 'UNKNOWN' || s.alertStatus === 'ADD_COMMENT')
    .map((s) => s.severityStats as Record<string, number>);
  const of = (severity: string) => stats.reduce((n, s) => n + (s[severity] ?? 0), 0);
  return {
    lastScanTotalUntriaged: of('High') + of('Medium') + of('Low'),
    lastScanHighUntriaged: of('High'),
    lastScanMediumUntriaged: of('Medium'),
    lastScanLowUntriaged: of('Low'),
  };
}

const sum = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(Object.keys(a).map((k) => [k, a[k] + (b[k] ?? 0)]));

describe('a stream per tool', () => {
  it('ZAP then Nuclei into one environment: nothing of ZAP is fixed, and every current figure is the union', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'juice-shop' });
    const zap = await importReport(tenant.token, appId, 'staging', fixture(ZAP));
    expect(zap.status, zap.text).toBe(200);
    const nuclei = await importReport(tenant.token, appId, 'staging', formatsFixture('nuclei', NUCLEI), 'text/plain');
    expect(nuclei.status, nuclei.text).toBe(200);
    const envId = zap.body.envId;
    expect(nuclei.body.envId).toBe(envId);

    // No ZAP finding is fixed by the Nuclei scan; every finding of both is current.
    const zapHashes = allHashes((await readBack(tenant.token, zap.body.scanId)).hashes);
    const nucleiHashes = allHashes((await readBack(tenant.token, nuclei.body.scanId)).hashes);
    const records = await recordsOf(appId, envId);
    expect(records.filter((r) => r.fixedAt !== undefined)).toEqual([]);
    expect(new Set(records.map((r) => r.findingHash))).toEqual(new Set([...zapHashes, ...nucleiHashes]));
    expect(new Set(records.filter((r) => zapHashes.has(r.findingHash)).map((r) => r.stream))).toEqual(new Set(['zap']));

    // The untriaged figures are both scans'.
    expect(untriagedOfImport(zap)).toEqual(untriagedOf(expectedAlerts(ZAP)));
    expect(untriagedOfImport(nuclei).lastScanTotalUntriaged).toBeGreaterThan(0);
    const union = sum(untriagedOfImport(zap), untriagedOfImport(nuclei));
    expect(await environmentOf(tenant, appId)).toMatchObject({ lastScanId: nuclei.body.scanId, ...union });

    // The findings report lists both scans' findings.
    const report = await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, {
      token: tenant.token,
      query: { pageSize: 1000 },
    });
    expect(report.status, report.text).toBe(200);
    const zapTotal = zap.body.scanResult.alertStats.totalAlerts as number;
    const nucleiTotal = nuclei.body.scanResult.alertStats.totalAlerts as number;
    expect(report.body.totalFindings).toBe(zapTotal + nucleiTotal);
    expect(new Set(report.body.findings.map((r: { scanId: string }) => r.scanId))).toEqual(
      new Set([zap.body.scanId, nuclei.body.scanId]),
    );

    // The deprecated environment list's last-scan figures are the union too.
    const v1 = await api('GET', `/api/v1/app/${appId}/env/list`, { token: tenant.token });
    expect(v1.status, v1.text).toBe(200);
    expect(v1.body.environments[0].currentScanSummary.alertStats.totalAlerts).toBe(zapTotal + nucleiTotal);

    // Triage of a ZAP finding (its stream's latest scan is still the ZAP import) moves the environment's figures.
    const zapScan = (await readBack(tenant.token, zap.body.scanId)).result;
    const medium = zapScan.applicationAlerts.find((a: { severity: string }) => a.severity === 'Medium');
    const mediumHashes = (await readBack(tenant.token, zap.body.scanId)).hashes[medium.pluginId];
    const triage = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
      token: tenant.token,
      body: { actions: [...new Set(mediumHashes)].map((findingHash) => ({ findingHash, status: 'FALSE_POSITIVE' })) },
    });
    expect(triage.status, triage.text).toBe(200);
    expect(await environmentOf(tenant, appId)).toMatchObject({
      ...union,
      lastScanMediumUntriaged: union.lastScanMediumUntriaged - medium.uriCount,
      lastScanTotalUntriaged: union.lastScanTotalUntriaged - medium.uriCount,
    });
  }, 120_000);

  it('ZAP then a smaller ZAP report: exactly the findings it no longer reports are fixed', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'juice-shop' });
    const full = fixture(ZAP).toString('utf8');
    // The same report without its third alert (a Medium one).
    const items = [...full.matchAll(/<alertitem>[\s\S]*?<\/alertitem>/g)];
    const smaller = full.replace(items[2][0], '');
    const first = await importReport(tenant.token, appId, 'staging', full);
    const nuclei = await importReport(tenant.token, appId, 'staging', formatsFixture('nuclei', NUCLEI), 'text/plain');
    const second = await importReport(tenant.token, appId, 'staging', smaller);
    expect([first.status, nuclei.status, second.status], second.text).toEqual([200, 200, 200]);
    const before = allHashes((await readBack(tenant.token, first.body.scanId)).hashes);
    const after = allHashes((await readBack(tenant.token, second.body.scanId)).hashes);
    const gone = [...before].filter((h) => !after.has(h));
    expect(gone.length).toBeGreaterThan(0);
    const records = await recordsOf(appId, first.body.envId);
    expect(
      records
        .filter((r) => r.fixedAt !== undefined)
        .map((r) => r.findingHash)
        .sort(),
    ).toEqual(gone.sort());
    // Nuclei's findings stay current, and in the figures.
    const nucleiHashes = allHashes((await readBack(tenant.token, nuclei.body.scanId)).hashes);
    expect(records.filter((r) => nucleiHashes.has(r.findingHash)).every((r) => r.fixedAt === undefined)).toBe(true);
    expect(await environmentOf(tenant, appId)).toMatchObject({
      lastScanId: second.body.scanId,
      ...sum(untriagedOfImport(second), untriagedOfImport(nuclei)),
    });
  }, 120_000);

  it('the upgrade of data written before streams assigns scans, findings and the environment to them', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'juice-shop' });
    const full = fixture(ZAP).toString('utf8');
    const zap = await importReport(tenant.token, appId, 'staging', full);
    const nuclei = await importReport(tenant.token, appId, 'staging', formatsFixture('nuclei', NUCLEI), 'text/plain');
    expect([zap.status, nuclei.status]).toEqual([200, 200]);
    const envId = zap.body.envId;
    const at = { applicationId: appId, environmentId: envId };
    // As the version before streams left them: the environment's figures its last scan's alone (with its
    // application's health), no streams; scans and finding records without a stream.
    const env = (await getEnvironment(appId, envId))!;
    const nucleiHead = env.streams!.nuclei;
    await transactWrite(await environmentScanWrites(env, { streams: { nuclei: nucleiHead } }));
    const unset = (key: { pk: string; sk: string }, names: string[]) =>
      db.send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: key,
          UpdateExpression: `REMOVE ${names.map((_, i) => `#n${i}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#n${i}`, name])),
        }),
      );
    await unset(keys.environment(appId, envId), ['streams', 'streamsVersion']);
    for (const scanId of [zap.body.scanId, nuclei.body.scanId])
      await unset(keys.scanRecord(appId, envId, scanId), ['stream']);
    for (const r of await recordsOf(appId, envId)) await unset(keys.finding(appId, envId, r.findingHash), ['stream']);
    expect(await environmentOf(tenant, appId)).toMatchObject(untriagedOfImport(nuclei));

    const item = { entity: 'environment', applicationId: appId, environmentId: envId };
    expect(await migrationSteps.environment(item)).toBe('updated');
    expect(await migrationSteps.environment(item)).toBe('current');
    const scanStream = async (scanId: string) => ((await getScan({ ...at, scanId })) as ScanRecord).stream;
    expect([await scanStream(zap.body.scanId), await scanStream(nuclei.body.scanId)]).toEqual(['zap', 'nuclei']);
    const zapHashes = allHashes((await readBack(tenant.token, zap.body.scanId)).hashes);
    const records = await recordsOf(appId, envId);
    expect(records.map((r) => r.stream).sort()).toEqual(
      records.map((r) => (zapHashes.has(r.findingHash) ? 'zap' : 'nuclei')).sort(),
    );
    expect(Object.keys((await getEnvironment(appId, envId))!.streams!).sort()).toEqual(['nuclei', 'zap']);
    expect(await environmentOf(tenant, appId)).toMatchObject(sum(untriagedOfImport(zap), untriagedOfImport(nuclei)));

    // Upgraded, the environment behaves as one written with streams: a smaller ZAP report fixes only ZAP's.
    const items = [...full.matchAll(/<alertitem>[\s\S]*?<\/alertitem>/g)];
    const second = await importReport(tenant.token, appId, 'staging', full.replace(items[2][0], ''));
    expect(second.status, second.text).toBe(200);
    const after = allHashes((await readBack(tenant.token, second.body.scanId)).hashes);
    const fixed = (await recordsOf(appId, envId)).filter((r) => r.fixedAt !== undefined).map((r) => r.findingHash);
    expect(fixed.sort()).toEqual([...zapHashes].filter((h) => !after.has(h)).sort());
  }, 120_000);
});
