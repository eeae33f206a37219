import { XMLValidator } from 'fast-xml-parser';
import { parseZapReport } from '../zap/index.ts';
import { ZapReportError as ReportError, type ReadLimits } from '../zap/report.ts';
import { isWapitiJson, isWapitiXmlRoot, readWapitiReport } from '../wapiti/index.ts';
import { fromZapReport, REPORT_TOOLS, type ImportedReport, type ReportTool } from './report.ts';
import { rootElementName } from './xml.ts';

// Reads a scanner's report of any tool the import knows (docs/IMPORTS.md), recognised from its content or named by
// the caller (`format`), into the alerts of one scan. The CLI parses locally with it and the service's import
// operation (POST /api/v1/app/{appId}/scan/import) parses with it too. A document that could be read as the report
// of more than one tool is refused, naming the candidates; `format` then chooses.

export { ZapReportError as ReportError, ReportTooLargeError } from '../zap/report.ts';
export { REPORT_TOOLS, importedFrom, importedScanConfig, importedScanLabels } from './report.ts';
export type { ImportedReport, ReportTool } from './report.ts';
export { BATCH_LIMITS, reportBatches, toReportedAlerts, urlCountOf, LIMITS, SEVERITIES } from '../zap/index.ts';
export type { ImportedAlert, ImportedUri, ReadLimits, ReportedAlert, Severity, SkippedItem } from '../zap/index.ts';
export { readWapitiReport } from '../wapiti/index.ts';

type JsonObject = Record<string, unknown>;

const TOOL_NAMES: Record<ReportTool, string> = {
  zap: 'ZAP',
  wapiti: 'Wapiti',
  nuclei: 'Nuclei',
  burp: 'Burp Suite',
  sarif: 'SARIF',
};

/** Whether `value` names a tool (`format`), in any case. */
export const isReportTool = (value: string): value is ReportTool =>
  (REPORT_TOOLS as readonly string[]).includes(value.toLowerCase());

const toText = (input: string | Buffer) =>
  (typeof input === 'string' ? input : input.toString('utf8')).replace(/^\uFEFF/, '');

/** The tools whose reports the document's content matches, and the parsed JSON when it is JSON. */
function candidatesOf(text: string): { tools: ReportTool[]; json?: JsonObject; why: string } {
  const start = text.trimStart();
  if (start.startsWith('<')) {
    const root = rootElementName(start);
    const tools: ReportTool[] = [];
    if (root === 'OWASPZAPReport') tools.push('zap');
    if (isWapitiXmlRoot(root)) tools.push('wapiti');
    if (tools.length === 0) {
      const valid = XMLValidator.validate(start);
      if (valid !== true)
        throw new ReportError(`malformed XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
    }
    return { tools, why: `an XML document with root element <${root.slice(0, 64)}>` };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ReportError(`neither XML nor valid JSON: ${(error as Error).message}`);
  }
  if (!document || typeof document !== 'object' || Array.isArray(document))
    return { tools: [], why: `a JSON ${Array.isArray(document) ? 'array' : 'value'}` };
  const json = document as JsonObject;
  const tools: ReportTool[] = [];
  if (Object.hasOwn(json, 'site') || Object.hasOwn(json, 'runs')) tools.push('zap');
  if (isWapitiJson(json)) tools.push('wapiti');
  const keys = Object.keys(json)
    .slice(0, 5)
    .map((k) => JSON.stringify(k.slice(0, 40)));
  return { tools, json, why: `a JSON object with keys ${keys.length ? keys.join(', ') : '(none)'}` };
}

function readAs(tool: ReportTool, text: string, json: JsonObject | undefined, limits: ReadLimits): ImportedReport {
  switch (tool) {
    case 'zap':
      return fromZapReport(parseZapReport(text, limits));
    case 'wapiti':
      return readWapitiReport(json ?? text, limits);
    default:
      throw new ReportError(`${TOOL_NAMES[tool]} reports are not imported yet`);
  }
}

/**
 * The report read as `format`'s tool, or as the one tool its content matches. Throws ReportError (naming where)
 * for anything that is not a report of a known tool, or that matches several without `format`, and
 * ReportTooLargeError as soon as the mapping passes `limits`.
 */
export function parseReport(input: string | Buffer, format?: string, limits: ReadLimits = {}): ImportedReport {
  const text = toText(input);
  if (format !== undefined && !isReportTool(format))
    throw new ReportError(`format ${JSON.stringify(format.slice(0, 40))} is not one of ${REPORT_TOOLS.join(', ')}`);
  const named = format?.toLowerCase() as ReportTool | undefined;
  if (!text.trim()) throw new ReportError('the report is empty');
  const { tools, json, why } = candidatesOf(text);
  if (named) return readAs(named, text, json, limits);
  if (tools.length === 1) return readAs(tools[0], text, json, limits);
  if (tools.length === 0)
    throw new ReportError(
      `not a report of a known tool (${REPORT_TOOLS.map((t) => TOOL_NAMES[t]).join(', ')}): ${why}`,
    );
  throw new ReportError(
    `${why} could be a report of ${tools.map((t) => TOOL_NAMES[t]).join(' or ')}: name it with format=${tools.join(' or format=')}`,
  );
}
