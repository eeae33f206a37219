import { LIMITS, type ZapReport } from '../zap/report.ts';

// What every importer reads a report into: the alerts of one scan in the shape the reporting operations take
// (POST /api/v1/scan/{scanId}/alerts, via toReportedAlerts), with the tool that wrote it. ZAP's reader came first
// and its ZapReport is this shape with ZAP's names; every other tool's reader answers an ImportedReport directly.

/** The tools whose reports are imported; also the values the import takes as `format`. */
export const REPORT_TOOLS = ['zap', 'wapiti', 'nuclei', 'burp', 'sarif'] as const;
export type ReportTool = (typeof REPORT_TOOLS)[number];

export interface ImportedReport extends Omit<ZapReport, 'format' | 'zapVersion'> {
  tool: ReportTool;
  /** The tool's name as people know it ('ZAP', 'Wapiti', or a SARIF log's driver name). */
  toolName: string;
  /** The tool's own format: ZAP's xml, xml-plus, json, json-plus or sarif; Wapiti's json or xml, and so on. */
  format: string;
  /** The tool's version as the report states it ('' when it does not). */
  toolVersion: string;
}

export const fromZapReport = ({ format, zapVersion, ...rest }: ZapReport): ImportedReport => ({
  tool: 'zap',
  toolName: 'ZAP',
  format,
  toolVersion: zapVersion,
  ...rest,
});

/** `importedFrom` tag value: `zap-xml`, `wapiti-json`, `nuclei-jsonl`... (`sarif` alone for a SARIF log). */
export const importedFrom = (report: Pick<ImportedReport, 'tool' | 'format'>) =>
  report.tool === report.format ? report.tool : `${report.tool}-${report.format}`;

/**
 * The scan configuration an imported scan reports (a stackhawk.yml naming the application, environment and host,
 * and where the scan came from), the same whether the CLI or the import operation stores it.
 */
export function importedScanConfig(
  appId: string,
  env: string,
  report: Pick<ImportedReport, 'tool' | 'toolName' | 'format' | 'toolVersion' | 'host'>,
): string {
  const tool = report.tool === 'zap' ? 'OWASP ZAP' : report.toolName;
  const version = report.toolVersion ? `${report.toolName} ${report.toolVersion}` : 'version unknown';
  return [
    `# Imported ${tool} report (${report.format}, ${version})`.replace(/[\r\n]+/g, ' '),
    'app:',
    `  applicationId: ${JSON.stringify(appId)}`,
    `  env: ${JSON.stringify(env)}`,
    `  host: ${JSON.stringify(report.host)}`,
    '',
  ].join('\n');
}

/** What an imported scan is tagged with, and the HawkScan-version field it reports. */
export const importedScanLabels = (report: Pick<ImportedReport, 'tool' | 'toolName' | 'format' | 'toolVersion'>) => ({
  hawkscanVersion: `${report.toolName} ${report.toolVersion}`.trim().slice(0, 64),
  tags: [
    { name: 'importedFrom', value: importedFrom(report) },
    ...(report.toolVersion
      ? [{ name: report.tool === 'zap' ? 'zapVersion' : 'toolVersion', value: report.toolVersion }]
      : []),
  ],
});

/** The tool's version as a report states it, cut to what is stored. */
export const versionOf = (text: string) => text.trim().slice(0, LIMITS.version);
