import { readFileSync } from 'node:fs';
import { parseZapReport } from '@hawk-api/scanner/zap';

// The real ZAP report the dashboard's tests import (scanner/test/fixtures/zap, sources in its SOURCES.md), and the
// scanner package's reader for an independent count of what it holds.
export const ZAP_SAMPLE = 'scanner/test/fixtures/zap/zap-xml_2.7.0_crlf_defectdojo-zap_sample.xml';

export function readZapSample(path = ZAP_SAMPLE) {
  return parseZapReport(readFileSync(path));
}
