import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { createTenant } from './fixtures.ts';
import { createApp } from './scan-helpers.ts';
import { importReport, readBack } from './import-helpers.ts';
import { fixture } from '../../scanner/test/zap-expected.ts';
import { formatsFixture } from '../../scanner/test/formats-expected.ts';

// GET /api/v1/scan/{scanId}/diff (docs/DATA-MODEL.md, Scan diffs): what changed between two scans of one environment,
// by default against the previous completed scan of the same tool stream.

const ZAP = 'zap-xml_2.10.0_juice-shop_defectdojo-juicy2.xml';
const NUCLEI = 'nuclei-jsonl_v2-2022_classification_defectdojo-many_findings_new.jsonl';

const diff = (token: string, scanId: string, against?: string) =>
  api('GET', `/api/v1/scan/${scanId}/diff`, { token, query: against === undefined ? {} : { against } });

const hashesOf = (entries: { findingHash: string }[]) => entries.map((e) => e.findingHash).sort();
const allHashes = (hashes: Record<string, string[]>) => [...new Set(Object.values(hashes).flat())].sort();

describe('scan diff', () => {
  it('gives the exact new, fixed, regressed and unchanged sets, against the same stream by default', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'juice-shop' });
    const full = fixture(ZAP).toString('utf8');
    const items = [...full.matchAll(/<alertitem>[\s\S]*?<\/alertitem>/g)];
    const smaller = full.replace(items[2][0], '');
    const a = await importReport(tenant.token, appId, 'staging', full);
    const b = await importReport(tenant.token, appId, 'staging', smaller);
    const nuclei = await importReport(tenant.token, appId, 'staging', formatsFixture('nuclei', NUCLEI), 'text/plain');
    const c = await importReport(tenant.token, appId, 'staging', full);
    expect([a.status, b.status, nuclei.status, c.status]).toEqual([200, 200, 200, 200]);
    const [inA, inB] = await Promise.all(
      [a, b].map(async (out) => allHashes((await readBack(tenant.token, out.body.scanId)).hashes)),
    );
    const gone = inA.filter((h) => !inB.includes(h));
    expect(gone.length).toBeGreaterThan(0);

    // The first scan of its stream: everything new.
    const first = await diff(tenant.token, a.body.scanId);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      scanId: a.body.scanId,
      againstScanId: '',
      fixed: [],
      regressed: [],
      unchanged: [],
    });
    expect(hashesOf(first.body.new)).toEqual(inA);
    // Most severe first (the sample's most severe alerts are Medium).
    const order = ['High', 'Medium', 'Low', 'Info'];
    const ranks = first.body.new.map((e: { severity: string }) => order.indexOf(e.severity));
    expect(ranks).toEqual([...ranks].sort((x, y) => x - y));
    expect(first.body.new[0]).toMatchObject({ severity: 'Medium' });
    // The issue (docs/ISSUES.md) is another id than the finding's hash: a 64-digit hex digest of its own.
    expect(first.body.new[0].issueId).toMatch(/^[0-9a-f]{64}$/);
    expect(first.body.new[0].issueId).not.toBe(first.body.new[0].findingHash);
    expect(Object.keys(first.body.new[0]).sort()).toEqual(
      ['findingHash', 'issueId', 'method', 'name', 'param', 'pluginId', 'severity', 'uri'].sort(),
    );

    // B against A: the missing alert's findings fixed, the rest unchanged.
    const second = await diff(tenant.token, b.body.scanId);
    expect(second.status, second.text).toBe(200);
    expect(second.body).toMatchObject({ againstScanId: a.body.scanId, new: [], regressed: [] });
    expect(hashesOf(second.body.fixed)).toEqual(gone);
    expect(hashesOf(second.body.unchanged)).toEqual(inB);

    // C against B (the Nuclei import between them is another stream): the alert is back, regressed.
    const third = await diff(tenant.token, c.body.scanId);
    expect(third.status, third.text).toBe(200);
    expect(third.body).toMatchObject({ againstScanId: b.body.scanId, new: [], fixed: [] });
    expect(hashesOf(third.body.regressed)).toEqual(gone);
    expect(hashesOf(third.body.unchanged)).toEqual(inB);

    // Against a named scan: C against A changes nothing; A against the Nuclei scan, every finding differs.
    const same = await diff(tenant.token, c.body.scanId, a.body.scanId);
    expect(same.body).toMatchObject({ againstScanId: a.body.scanId, new: [], fixed: [], regressed: [] });
    expect(hashesOf(same.body.unchanged)).toEqual(inA);
    const cross = await diff(tenant.token, nuclei.body.scanId, a.body.scanId.toUpperCase());
    expect(cross.status, cross.text).toBe(200);
    expect(hashesOf(cross.body.fixed)).toEqual(inA);
    expect(cross.body.unchanged).toEqual([]);
  }, 120_000);

  it("answers 400 for scans of two environments or a malformed id, 404 for another organization's scan", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const appId = await createApp(tenant, { name: 'one' });
    const report = formatsFixture('nuclei', NUCLEI);
    const dev = await importReport(tenant.token, appId, 'dev', report, 'text/plain');
    const prod = await importReport(tenant.token, appId, 'prod', report, 'text/plain');
    const theirApp = await createApp(other, { name: 'theirs' });
    const theirs = await importReport(other.token, theirApp, 'dev', report, 'text/plain');
    expect([dev.status, prod.status, theirs.status]).toEqual([200, 200, 200]);

    const twoEnvironments = await diff(tenant.token, dev.body.scanId, prod.body.scanId);
    expect(twoEnvironments.status).toBe(400);
    expect(twoEnvironments.body.message).toMatch(/against: .*another environment/);
    const malformed = await diff(tenant.token, dev.body.scanId, 'not-a-scan');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/against/);
    // Another organization's scan, named or diffed, is unknown: nothing of it is confirmed.
    const named = await diff(tenant.token, dev.body.scanId, theirs.body.scanId);
    expect(named.status).toBe(404);
    expect(named.text).not.toContain(theirApp);
    expect((await diff(tenant.token, theirs.body.scanId)).status).toBe(404);
    expect((await diff(other.token, theirs.body.scanId, dev.body.scanId)).status).toBe(404);
  }, 60_000);
});
