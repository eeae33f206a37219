import { describe, expect, it } from 'vitest';
import { BATCH_LIMITS, parseZapReport, reportBatches, toReportedAlerts, type ReportedAlert } from '../src/zap/index.ts';
import { SAMPLES, fixture } from './zap-expected.ts';

// How the CLI cuts a report into findings reports: within the limits, in order, every URI once, deterministic.

const alertWith = (pluginId: string, uris: number, bodyBytes = 0): ReportedAlert => ({
  pluginId,
  name: `Alert ${pluginId}`,
  severity: 'Low',
  description: '',
  cweId: '',
  references: [],
  uris: Array.from({ length: uris }, (_, i) => ({
    uri: `/p/${pluginId}/${i}`,
    requestMethod: 'GET',
    param: '',
    evidence: '',
    otherInfo: '',
    requestHeader: '',
    requestBody: '',
    responseHeader: '',
    responseBody: 'b'.repeat(bodyBytes),
  })),
});

const flatten = (batches: ReportedAlert[][]) =>
  batches.flat().flatMap((a) => a.uris.map((u) => `${a.pluginId} ${u.uri}`));

describe('reportBatches', () => {
  it('keeps every batch within the alert, URI and byte limits, every URI once and in order', () => {
    const alerts = [
      alertWith('1', 4500),
      ...Array.from({ length: 120 }, (_, i) => alertWith(`x${i}`, 3)),
      alertWith('big', 40, 200_000),
    ];
    const batches = reportBatches(alerts);
    for (const batch of batches) {
      expect(batch.length).toBeLessThanOrEqual(BATCH_LIMITS.maxAlerts);
      expect(batch.reduce((n, a) => n + a.uris.length, 0)).toBeLessThanOrEqual(BATCH_LIMITS.maxUris);
      expect(Buffer.byteLength(JSON.stringify({ alerts: batch, reportId: 'x'.repeat(64) }))).toBeLessThanOrEqual(
        4 * 1024 * 1024,
      );
    }
    expect(flatten(batches)).toEqual(flatten([alerts]));
    // An alert with more URIs than a batch holds is split over consecutive batches, its metadata in each.
    expect(batches[0]).toHaveLength(1);
    expect(batches[0][0].uris).toHaveLength(BATCH_LIMITS.maxUris);
    expect(
      batches
        .flat()
        .filter((a) => a.pluginId === 'big')
        .every((a) => a.name === 'Alert big'),
    ).toBe(true);
    expect(reportBatches(alerts)).toEqual(batches);
  });

  it('honours a smaller URI limit (--batch-size) and leaves an empty report without batches', () => {
    const batches = reportBatches([alertWith('1', 250)], { ...BATCH_LIMITS, maxUris: 100 });
    expect(batches.map((b) => b[0].uris.length)).toEqual([100, 100, 50]);
    expect(reportBatches([])).toEqual([]);
  });

  it('maps every sample to alerts the reporting operations take (sizes within their limits)', () => {
    for (const file of SAMPLES) {
      for (const alert of toReportedAlerts(parseZapReport(fixture(file)))) {
        expect(alert.description.length).toBeLessThanOrEqual(65_536);
        for (const uri of alert.uris) {
          expect(uri.otherInfo.length).toBeLessThanOrEqual(16_384);
          expect(
            Buffer.byteLength(
              uri.requestHeader +
                uri.requestBody +
                uri.responseHeader +
                uri.responseBody +
                uri.evidence +
                uri.otherInfo,
            ),
          ).toBeLessThanOrEqual(300_000);
        }
      }
    }
    const sarif = toReportedAlerts(parseZapReport(fixture('zap-sarif_2.16.0_bodgeit_smithy.sarif.json')));
    expect(sarif.flatMap((a) => a.uris).some((u) => u.otherInfo.startsWith('Attack: '))).toBe(true);
    expect(sarif.every((a) => a.description.includes('\n\nSolution:\n'))).toBe(true);
  });
});
