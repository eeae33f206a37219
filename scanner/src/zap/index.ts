import { mapSites, ZapReportError, type ReadLimits, type ZapReport } from './report.ts';
import { looksLikeXml, readXmlReport } from './xml.ts';
import { readJsonReport } from './json.ts';
import { readSarifReport, sarifToolName } from './sarif.ts';

// Reads an OWASP ZAP report of any format ZAP writes (traditional XML, xml-plus, traditional JSON, json-plus,
// SARIF), recognised from its content, into the alerts of one scan. The CLI parses locally with it and the
// service's import operation (POST /api/v1/app/{appId}/scan/import) parses with it too.

export {
  ZapReportError,
  ReportTooLargeError,
  MAX_SKIPPED_LISTED,
  LIMITS,
  SEVERITIES,
  ZAP_FORMATS,
  urlCountOf,
} from './report.ts';
export { BATCH_LIMITS, reportBatches, toReportedAlerts } from './reported.ts';
export type { ReportedAlert, ReportedUri } from './reported.ts';
export type { ImportedAlert, ImportedUri, ReadLimits, Severity, SkippedItem, ZapFormat, ZapReport } from './report.ts';

/** `limits`: stop with a ReportTooLargeError as soon as the report has more alerts or findings (none by default). */
export function parseZapReport(input: string | Buffer, limits: ReadLimits = {}): ZapReport {
  const text = (typeof input === 'string' ? input : input.toString('utf8')).replace(/^\uFEFF/, '');
  if (!text.trim()) throw new ZapReportError('the report is empty');
  if (looksLikeXml(text)) {
    const { sites, version, plus } = readXmlReport(text);
    return mapSites(plus ? 'xml-plus' : 'xml', version, sites, limits);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ZapReportError(`neither XML nor valid JSON: ${(error as Error).message}`);
  }
  if (!document || typeof document !== 'object' || Array.isArray(document)) {
    throw new ZapReportError('not a ZAP report: the JSON document is not an object');
  }
  const report = document as Record<string, unknown>;
  if ('runs' in report) {
    const tool = sarifToolName(report);
    if (!/\bZAP\b/i.test(tool))
      throw new ZapReportError(
        `not a ZAP report: a SARIF log from ${JSON.stringify(tool.slice(0, 64) || 'an unnamed tool')} (runs[0].tool.driver.name), expected ZAP`,
      );
    const { sites, version } = readSarifReport(report);
    return mapSites('sarif', version, sites, limits);
  }
  if ('site' in report) {
    const { sites, version, plus } = readJsonReport(report);
    return mapSites(plus ? 'json-plus' : 'json', version, sites, limits);
  }
  const keys = Object.keys(report)
    .slice(0, 5)
    .map((k) => JSON.stringify(k.slice(0, 40)));
  throw new ZapReportError(
    `not a ZAP report: a ZAP JSON report has a top-level "site" list and a SARIF log "runs"; this one has ${keys.length ? keys.join(', ') : 'no keys'}`,
  );
}
