import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { createTenant } from './fixtures.ts';
import { alert, createApp, scanOnce } from './scan-helpers.ts';
import { importReport, readBack } from './import-helpers.ts';
import { fixture } from '../../scanner/test/zap-expected.ts';
import { formatsFixture } from '../../scanner/test/formats-expected.ts';
import { batchDelete, queryAll } from '../../shared/db/query.ts';
import { keys } from '../../shared/db/keys.ts';
import { digestItems, dropDigest, recordOf } from './scan-digests.ts';
import { putScanDigest, scanDigestOf, type DigestRow } from '../../shared/scans/scan-digest.ts';

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

    // In pages (pageSize; pageToken: the previous page's nextPageToken): the same entries in the same order, through
    // new, regressed, fixed, then unchanged; each set's total on every page; nextPageToken '' after the last.
    const whole = [...third.body.new, ...third.body.regressed, ...third.body.fixed, ...third.body.unchanged];
    expect(third.body.totals).toEqual({ new: 0, regressed: gone.length, fixed: 0, unchanged: inB.length });
    expect(third.body.nextPageToken).toBe('');
    const paged: unknown[] = [];
    let pages = 0;
    for (let pageToken = '0'; pageToken; pages++) {
      const page = await api('GET', `/api/v1/scan/${c.body.scanId}/diff`, {
        token: tenant.token,
        query: { pageSize: 7, pageToken },
      });
      expect(page.status, page.text).toBe(200);
      expect(page.body.totals).toEqual(third.body.totals);
      const entries = [...page.body.new, ...page.body.regressed, ...page.body.fixed, ...page.body.unchanged];
      expect(entries.length).toBeLessThanOrEqual(7);
      paged.push(...entries);
      pageToken = page.body.nextPageToken;
    }
    expect(pages).toBe(Math.ceil(whole.length / 7));
    expect(paged).toEqual(whole);
    for (const [query, named] of [
      [{ pageSize: '0' }, 'pageSize'],
      [{ pageSize: '20001' }, 'pageSize'],
      [{ pageToken: 'next' }, 'pageToken'],
      [{ pageToken: '2147483648' }, 'pageToken'],
    ] as const) {
      const refused = await api('GET', `/api/v1/scan/${c.body.scanId}/diff`, { token: tenant.token, query });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.message).toContain(named);
    }

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

  describe("from the scans' digests (scans/scan-digest.ts)", () => {
    it('answers as the recomputation from the URIs, for imported and reported scans, and ignores a stale digest', async () => {
      const tenant = await createTenant();
      const appId = await createApp(tenant, { name: 'digested' });
      const full = fixture(ZAP).toString('utf8');
      const items = [...full.matchAll(/<alertitem>[\s\S]*?<\/alertitem>/g)];
      const a = await importReport(tenant.token, appId, 'staging', full.replace(items[0][0], ''));
      const b = await importReport(tenant.token, appId, 'staging', full.replace(items[2][0], ''));
      expect([a.status, b.status]).toEqual([200, 200]);
      const reported = await createApp(tenant, { name: 'reported', env: 'dev' });
      const c = await scanOnce(tenant.token, reported, [
        alert('40012', 'High', 6),
        alert('10020', 'Medium', 4, 0, '16'),
      ]);
      const d = await scanOnce(tenant.token, reported, [
        alert('40012', 'High', 6, 3),
        alert('10021', 'Low', 2, 0, '693'),
      ]);
      for (const [scan, base] of [
        [b.body.scanId, a.body.scanId],
        [d.scanId, c.scanId],
      ] as const) {
        // Published with one digest item each (a head holding its rows: small scans need no chunks).
        for (const id of [scan, base])
          expect((await digestItems(id)).map((item) => item.entity)).toEqual(['scanDigest']);
        const fromDigests = await diff(tenant.token, scan);
        expect(fromDigests.status, fromDigests.text).toBe(200);
        expect(fromDigests.body.againstScanId).toBe(base);
        expect(fromDigests.body.new.length + fromDigests.body.fixed.length).toBeGreaterThan(0);
        expect(fromDigests.body.unchanged.length).toBeGreaterThan(0);
        // A digest of another count of URIs (a completion that failed before more reports came) is not read: an
        // empty one would otherwise make every finding of the base fixed.
        const record = await recordOf(base);
        await putScanDigest({ ...record, reportedUris: record.reportedUris + 1 }, [], [], '');
        expect(await scanDigestOf(record)).toBeUndefined();
        expect((await diff(tenant.token, scan)).body).toEqual(fromDigests.body);
        // The diff reads the scan's digest: its rows marked, the answer shows the marks.
        const scanRecord = await recordOf(scan);
        const digest = (await scanDigestOf(scanRecord))!;
        const plugins = [...digest.plugins].map(([pluginId, p]) => ({ pluginId, ...p }));
        const marked = digest.rows.map((row) => ({ ...row, uri: `${row.uri}#from-digest` }));
        await putScanDigest(scanRecord, marked, plugins, digest.templates);
        const read = (await diff(tenant.token, scan)).body;
        const entries = [...read.new, ...read.regressed, ...read.unchanged] as { uri: string }[];
        expect(entries.length).toBe(digest.rows.length);
        expect(entries.every((e) => e.uri.endsWith('#from-digest'))).toBe(true);
        // Without digests (scans published before them), the URIs give the same answer.
        await Promise.all([scan, base].map(dropDigest));
        expect(await digestItems(scan)).toEqual([]);
        expect((await diff(tenant.token, scan)).body).toEqual(fromDigests.body);
      }
    }, 120_000);

    it('recomputes the issues when the application described its paths after the scans', async () => {
      const tenant = await createTenant();
      const appId = await createApp(tenant, { name: 'described later', env: 'dev' });
      const users = (ids: string[]) => ids.map((id) => ({ ...alert('40012', 'High', 1).uris[0], uri: `/users/${id}` }));
      const first = await scanOnce(tenant.token, appId, [
        { ...alert('40012', 'High', 0), uris: users(['alice', 'bob']) },
      ]);
      const second = await scanOnce(tenant.token, appId, [
        { ...alert('40012', 'High', 0), uris: users(['bob', 'carol']) },
      ]);
      const before = await diff(tenant.token, second.scanId);
      expect(before.status, before.text).toBe(200);
      const issuesOf = (body: { new: { issueId: string }[]; unchanged: { issueId: string }[] }) =>
        new Set([...body.new, ...body.unchanged].map((e) => e.issueId));
      expect(issuesOf(before.body).size).toBe(2); // /users/bob and /users/carol apart
      const uploaded = await api('POST', `/api/v1/oas/${appId}/upload`, {
        token: tenant.token,
        rawBody: [
          'openapi: 3.0.3',
          'info: {title: Users, version: "1"}',
          'paths:',
          '  /users/{id}:',
          '    get:',
          '      parameters: [{name: id, in: path, required: true, schema: {type: string}}]',
          '      responses: {"200": {description: a user}}',
        ].join('\n'),
        contentType: 'application/yaml',
      });
      expect(uploaded.status, uploaded.text).toBe(200);
      const after = await diff(tenant.token, second.scanId);
      expect(issuesOf(after.body).size).toBe(1); // one issue: /users/{id}
      await Promise.all([first.scanId, second.scanId].map(dropDigest));
      expect((await diff(tenant.token, second.scanId)).body).toEqual(after.body);
    }, 120_000);

    it('splits a large digest into chunks, reads back only the latest whole one', async () => {
      const scan = {
        applicationId: randomUUID(),
        environmentId: randomUUID(),
        scanId: randomUUID(),
        reportedUris: 5000,
      };
      // Random URIs do not compress: about 5000 * 170 bytes gzipped, three chunks of 350 KB.
      const findings: DigestRow[] = Array.from({ length: 5000 }, (_, i) => ({
        findingHash: randomBytes(32).toString('hex'),
        pluginId: String(40_000 + (i % 3)),
        requestMethod: 'GET',
        uri: `/${randomBytes(100).toString('hex')}`,
        param: i % 2 ? 'q' : '',
        issueId: randomBytes(32).toString('hex'),
      }));
      const alerts = ['40000', '40001', '40002'].map((pluginId) => ({
        pluginId,
        name: `Plugin ${pluginId}`,
        severity: 'High' as const,
        cweId: '79',
      }));
      await putScanDigest({ ...scan, reportedUris: 4999 }, findings.slice(1), alerts, 'older');
      await putScanDigest(scan, findings, alerts, 'templates-key');
      const head = keys.scanDigest(scan.applicationId, scan.environmentId, scan.scanId);
      const stored = await queryAll({ partition: head.pk, skPrefix: head.sk });
      expect(stored[0]).toMatchObject({ sk: head.sk, reportedUris: 5000, chunks: 3 });
      expect(stored.filter((item) => item.entity === 'scanDigestChunk')).toHaveLength(6); // both digests' chunks
      const read = await scanDigestOf(scan);
      expect(read?.templates).toBe('templates-key');
      expect(read?.rows).toEqual(findings);
      expect(read?.plugins.get('40001')).toEqual({ name: 'Plugin 40001', severity: 'High', cweId: '79' });
      // A chunk missing (never whole): no digest, the diff reads the URIs.
      const chunk = stored.find(
        (item) => item.entity === 'scanDigestChunk' && (item.sk as string).includes(stored[0].digestId as string),
      );
      await batchDelete([{ pk: chunk!.pk, sk: chunk!.sk }]);
      expect(await scanDigestOf(scan)).toBeUndefined();
    }, 60_000);
  });
});
