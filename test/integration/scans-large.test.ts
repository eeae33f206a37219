import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { createTenant } from './fixtures.ts';
import { alert, completeScan, createApp, reportAlerts, startScan } from './scan-helpers.ts';

describe('a large scan: 5,000 alert URIs reported in batches', () => {
  it('counts every URI exactly once and pages through all of them', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant);
    const { scanId } = await startScan(tenant.token, appId);
    // 5 batches of 1,000 URIs: plugin 1 in every batch (4,000 URIs, merging), plugin 2 once (1,000), sent two at a time.
    const batches = Array.from({ length: 5 }, (_, b) =>
      b === 4 ? [alert('2', 'Medium', 1000, 0)] : [alert('1', 'High', 1000, b * 1000)],
    );
    await Promise.all(
      [0, 1].map(async (lane) => {
        for (let b = lane; b < batches.length; b += 2) await reportAlerts(tenant.token, scanId, batches[b]);
      }),
    );
    const done = await completeScan(tenant.token, scanId);
    expect(done.alertStats).toMatchObject({ totalAlerts: 5000, uniqueAlerts: 2 });
    expect(done.alertStats.alertStatusStats[0].severityStats).toEqual({ High: 4000, Medium: 1000, Low: 0 });

    const seen = new Set<string>();
    const uris = new Set<string>();
    for (let page = 0; ; page++) {
      const out = await api('GET', `/api/v1/scan/${scanId}/alert/1`, {
        token: tenant.token,
        query: { pageSize: 100, pageToken: page },
      });
      expect(out.body.totalCount).toBe('4000');
      for (const u of out.body.applicationScanAlertUris) {
        seen.add(u.alertUriId);
        uris.add(u.uri);
      }
      if (out.body.applicationScanAlertUris.length < 100) break;
      expect(out.body.nextPageToken).toBe(page === 39 ? '4001' : String(page + 1));
    }
    expect(seen.size).toBe(4000);
    expect(uris.size).toBe(4000);
  }, 120_000);
});
