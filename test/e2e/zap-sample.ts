import { readFileSync } from 'node:fs';
import { parseZapReport } from '@hawk-api/scanner/zap';
import { completeScan, reportAlerts, startScan } from '../integration/scan-helpers.ts';

// A scan from a real ZAP report (scanner/test/fixtures/zap, sources in its SOURCES.md), read with the scanner
// package's reader and sent through the reporting operations, as the scanner CLI does.
export const ZAP_SAMPLE = 'scanner/test/fixtures/zap/zap-xml_2.7.0_crlf_defectdojo-zap_sample.xml';

export function readZapSample(path = ZAP_SAMPLE) {
  return parseZapReport(readFileSync(path));
}

/** Reports the sample as one completed scan of `env`; answers its scan id and the report it came from. */
export async function reportZapSample(token: string, appId: string, env: string, path = ZAP_SAMPLE) {
  const report = readZapSample(path);
  const alerts = report.alerts.filter((a) => a.severity !== 'Info');
  const { scanId } = await startScan(token, appId, { env, host: report.host, hawkscanVersion: `zap-${report.zapVersion}` });
  await reportAlerts(token, scanId, alerts);
  await completeScan(token, scanId, 'COMPLETED', report.uriCount);
  return { scanId, report, alerts };
}
